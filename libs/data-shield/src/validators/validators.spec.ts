import { aadhaarValid, abaRoutingValid, base58CheckValid, bech32Valid, ibanMod97Valid, ibanValid, ipv4Valid, itinValid, luhnValid, panValid, ssnValid, verhoeffValid } from './index';

describe('Luhn', () => {
  it.each(['4111111111111111', '5500005555555559', '378282246310005', '6011111111111117', '4222222222222', '79927398713'])('accepts %s', (n) => {
    expect(luhnValid(n)).toBe(true);
  });
  it.each(['4111111111111112', '1234567812345678', '79927398710', '4111-1111'])('refuses %s', (n) => {
    expect(luhnValid(n)).toBe(false);
  });
});

describe('Verhoeff', () => {
  it('accepts numbers with their check digit and refuses a changed digit or a swap', () => {
    expect(verhoeffValid('2363')).toBe(true);
    expect(verhoeffValid('2364')).toBe(false);
    expect(verhoeffValid('2336')).toBe(false);
  });
  it('validates Aadhaar numbers: 12 digits, no leading 0 or 1, Verhoeff', () => {
    expect(aadhaarValid('234123412346')).toBe(true);
    expect(aadhaarValid('234123412347')).toBe(false);
    expect(aadhaarValid('123412341234')).toBe(false);
    expect(aadhaarValid('23412341234')).toBe(false);
  });
});

describe('IBAN mod-97 and country length', () => {
  it.each(['GB82WEST12345698765432', 'DE89370400440532013000', 'FR1420041010050500013M02606', 'NL91ABNA0417164300', 'gb82west12345698765432'])('accepts %s', (iban) => {
    expect(ibanValid(iban)).toBe(true);
  });
  it('refuses a wrong check, a wrong length for the country and an unknown country', () => {
    expect(ibanValid('GB82WEST12345698765431')).toBe(false);
    expect(ibanValid('DE8937040044053201300')).toBe(false);
    expect(ibanMod97Valid('DE8937040044053201300')).toBe(false);
    expect(ibanValid('ZZ82WEST12345698765432')).toBe(false);
  });
});

describe('SSN rules', () => {
  it('accepts issued shapes', () => {
    expect(ssnValid('078051120')).toBe(true);
    expect(ssnValid('123456789')).toBe(true);
  });
  it.each([
    ['000123456', 'area 000'],
    ['666123456', 'area 666'],
    ['912345678', 'area 9xx'],
    ['123001234', 'group 00'],
    ['123450000', 'serial 0000'],
    ['12345678', 'length'],
  ])('refuses %s (%s)', (n) => {
    expect(ssnValid(n)).toBe(false);
  });
  it('ITINs are the 9xx numbers with their own groups', () => {
    expect(itinValid('912701234')).toBe(true);
    expect(itinValid('912931234')).toBe(false);
    expect(itinValid('812701234')).toBe(false);
  });
});

describe('IPv4, PAN, ABA', () => {
  it('IPv4 octets 0-255 without leading zeros', () => {
    expect(ipv4Valid('192.168.0.1')).toBe(true);
    expect(ipv4Valid('255.255.255.255')).toBe(true);
    expect(ipv4Valid('256.1.1.1')).toBe(false);
    expect(ipv4Valid('1.2.3')).toBe(false);
    expect(ipv4Valid('01.2.3.4')).toBe(false);
  });
  it('PAN: AAAPL1234C shape with a holder kind', () => {
    expect(panValid('ABCPE1234F')).toBe(true);
    expect(panValid('ABCZE1234F')).toBe(false);
    expect(panValid('ABCPE12345')).toBe(false);
  });
  it('ABA routing numbers', () => {
    expect(abaRoutingValid('011000015')).toBe(true);
    expect(abaRoutingValid('011000016')).toBe(false);
  });
});

describe('crypto addresses', () => {
  it('Base58Check', () => {
    expect(base58CheckValid('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(true);
    expect(base58CheckValid('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy')).toBe(true);
    expect(base58CheckValid('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN3')).toBe(false);
  });
  it('bech32 and bech32m', () => {
    expect(bech32Valid('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4')).toBe(true);
    expect(bech32Valid('bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0')).toBe(true);
    expect(bech32Valid('bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t5')).toBe(false);
  });
});
