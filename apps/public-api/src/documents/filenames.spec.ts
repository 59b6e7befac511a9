import { attachmentDisposition, extensionOf, sanitiseFilename, withExtension } from './filenames';

describe('sanitiseFilename', () => {
  it.each([
    ['../../etc/passwd', 'passwd'],
    ['..\\..\\windows\\win.ini', 'win.ini'],
    ['report.pdf', 'report.pdf'],
    ['  .hidden  ', 'hidden'],
    ['..', 'document'],
    ['', 'document'],
    [undefined, 'document'],
    ['a\u0000b\r\nc.txt', 'abc.txt'],
    ['invoice\u202Efdp.exe', 'invoicefdp.exe'],
    ['Gehaltsübersicht 2024.pdf', 'Gehaltsübersicht 2024.pdf'],
  ])('%j → %j', (raw, expected) => {
    expect(sanitiseFilename(raw)).toBe(expected);
  });

  it('keeps the extension when it cuts a long name', () => {
    const name = sanitiseFilename(`${'x'.repeat(500)}.docx`);
    expect(name).toHaveLength(200);
    expect(name.endsWith('.docx')).toBe(true);
  });
});

describe('withExtension and extensionOf', () => {
  it('replaces or adds the extension', () => {
    expect(withExtension('report.docx', 'pdf')).toBe('report.pdf');
    expect(withExtension('README', 'pdf')).toBe('README.pdf');
    expect(withExtension('.docx', 'pdf')).toBe('.docx.pdf');
    expect(extensionOf('a/b.Tar.GZ')).toBe('gz');
    expect(extensionOf('noext')).toBe('');
  });
});

describe('attachmentDisposition', () => {
  it('quotes an ASCII fallback and adds the exact UTF-8 name', () => {
    expect(attachmentDisposition('Gehaltsübersicht "2024".pdf')).toBe(`attachment; filename="Gehalts_bersicht _2024_.pdf"; filename*=UTF-8''Gehalts%C3%BCbersicht%20%222024%22.pdf`);
  });

  it('never lets a path or a header break through', () => {
    const header = attachmentDisposition('../../etc/passwd\r\nSet-Cookie: x=1');
    expect(header).toBe(`attachment; filename="passwdSet-Cookie: x=1"; filename*=UTF-8''passwdSet-Cookie%3A%20x%3D1`);
  });
});
