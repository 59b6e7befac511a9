import { contentTypeProblem } from './content-type';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

describe('contentTypeProblem', () => {
  it.each([
    ['text/plain', 'text/plain', 'notes.txt'],
    ['text/plain', 'text/markdown; charset=utf-8', 'notes.md'],
    ['text/csv', 'application/vnd.ms-excel', 'table.csv'],
    ['application/json', 'text/plain', 'data.json'],
    ['application/pdf', 'application/octet-stream', 'scan'],
    ['application/pdf', undefined, 'scan.PDF'],
    ['image/jpeg', 'image/jpg', 'photo.jpeg'],
    [DOCX, 'application/zip', 'letter.docx'],
    ['image/png', 'image/png', 'weird.name.bin'],
  ] as const)('accepts %s declared as %s named %s', (sniffed, declared, name) => {
    expect(contentTypeProblem(sniffed, declared, name)).toBeUndefined();
  });

  it('refuses text sent as image/png', () => {
    expect(contentTypeProblem('text/plain', 'image/png', 'pixel.png')).toBe('the declared Content-Type image/png does not match the content, which is text/plain');
  });

  it('refuses a type that contradicts the extension even when the header claims nothing', () => {
    expect(contentTypeProblem('text/plain', 'application/octet-stream', 'pixel.png')).toBe('the file extension .png does not match the content, which is text/plain');
  });

  it('refuses a PDF declared as a Word document and a PNG declared as JPEG', () => {
    expect(contentTypeProblem('application/pdf', DOCX, 'a.pdf')).toMatch(/does not match the content, which is application\/pdf/);
    expect(contentTypeProblem('image/png', 'image/jpeg', 'a.png')).toMatch(/Content-Type image\/jpeg/);
  });
});
