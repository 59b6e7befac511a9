import { buildZip, type ZipInputEntry } from './zip-writer';

/** Test support: a minimal valid DOCX (WordprocessingML) written by hand. */

export type DocxBlock = string | { pageBreak: true };

export interface DocxOptions {
  /** Run font size in half-points (Word's unit); default Word's own. */
  fontSizeHalfPoints?: number;
  /** Extra archive entries (fixtures). */
  extraEntries?: ZipInputEntry[];
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export const CONTENT_TYPES_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
  '</Types>';

export const ROOT_RELS_XML =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>' +
  '</Relationships>';

export function documentXml(blocks: DocxBlock[], options: DocxOptions = {}): string {
  const runProps = options.fontSizeHalfPoints ? `<w:rPr><w:sz w:val="${options.fontSizeHalfPoints}"/></w:rPr>` : '';
  const body = blocks
    .map((block) => (typeof block === 'string' ? `<w:p><w:r>${runProps}<w:t xml:space="preserve">${escapeXml(block)}</w:t></w:r></w:p>` : '<w:p><w:r><w:br w:type="page"/></w:r></w:p>'))
    .join('');
  return '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' + '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' + `<w:body>${body}</w:body></w:document>`;
}

export function buildDocx(blocks: DocxBlock[], options: DocxOptions = {}): Buffer {
  return buildZip([
    { name: '[Content_Types].xml', data: CONTENT_TYPES_XML },
    { name: '_rels/.rels', data: ROOT_RELS_XML },
    { name: 'word/document.xml', data: documentXml(blocks, options) },
    ...(options.extraEntries ?? []),
  ]);
}
