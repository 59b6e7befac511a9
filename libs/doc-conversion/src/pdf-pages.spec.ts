import { countPdfPages } from './pdf-pages';

describe('countPdfPages', () => {
  it('reads /Count of the page tree root', () => {
    const pdf = Buffer.from(
      '%PDF-1.6\n1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n' + '2 0 obj\n<</Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3>>\nendobj\n' + '3 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n',
      'latin1',
    );
    expect(countPdfPages(pdf)).toBe(3);
  });

  it('takes the root when page trees nest', () => {
    const pdf = Buffer.from('1 0 obj <</Type/Pages/Count 2/Parent 3 0 R>> endobj 3 0 obj <</Type/Pages/Count 7>> endobj', 'latin1');
    expect(countPdfPages(pdf)).toBe(7);
  });

  it('falls back to counting page objects, ignoring stream data', () => {
    const pdf = Buffer.from('1 0 obj <</Type/Page>> endobj 2 0 obj <</Type /Page>> endobj 3 0 obj <</Length 20>> stream\n/Type /Page /Type /Page\nendstream endobj', 'latin1');
    expect(countPdfPages(pdf)).toBe(2);
  });

  it('gives undefined when it cannot tell', () => {
    expect(countPdfPages(Buffer.from('%PDF-1.7 compressed object streams only', 'latin1'))).toBeUndefined();
  });
});
