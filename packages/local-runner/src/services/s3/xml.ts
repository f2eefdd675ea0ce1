// S3's XML, both ways. Documents S3 answers are written here (a few elements each, escaped); documents it is sent
// (CompleteMultipartUpload, Delete, VersioningConfiguration, CORSConfiguration, ...) are read with fast-xml-parser,
// whose validator tells a malformed document, which S3 answers MalformedXML.
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/** An element: its name and its text, its children, or nothing (left out). */
export type XmlChild = [name: string, content: string | number | boolean | XmlChild[] | undefined];

/**
 * Text escaped for XML. A character XML 1.0 cannot hold (a control character; a key may have one) is written as a
 * character reference, which the SDKs' parsers read back; `encoding-type=url` is S3's own way around them.
 */
const escapeXml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
    // Anything but tab, line feed and the characters XML 1.0 holds as they are (a carriage return would be read as a
    // line feed).
    .replace(/[^\t\n\x20-\ud7ff\ue000-\ufffd\ud800-\udfff]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`);

const element = ([name, content]: XmlChild): string => {
  if (content === undefined) return '';
  if (Array.isArray(content)) return `<${name}>${content.map(element).join('')}</${name}>`;
  return `<${name}>${escapeXml(String(content))}</${name}>`;
};

/** A whole document: `root` holding `children`, in S3's namespace unless told not to (an `<Error>` has none). */
export const xmlDocument = (root: string, children: XmlChild[], { namespace = true } = {}) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${namespace ? ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"' : ''}>${children.map(element).join('')}</${root}>`;

/** A read element: its text, or its children by name (each a list, as an element may repeat). */
export type XmlValue = string | { [name: string]: XmlValue[] };

const parser = new XMLParser({
  ignoreAttributes: true,
  removeNSPrefix: true,
  parseTagValue: false,
  trimValues: false,
  isArray: () => true,
  processEntities: true,
});

/** The document `body` as its root's name and value, or undefined when it is not well-formed XML. */
export const parseXml = (body: Buffer): { root: string; value: XmlValue } | undefined => {
  const text = body.toString('utf8');
  if (text.trim() === '' || XMLValidator.validate(text) !== true) return undefined;
  const parsed = parser.parse(text) as Record<string, XmlValue[]>;
  const root = Object.keys(parsed).find((name) => name !== '?xml');
  const value = root === undefined ? undefined : parsed[root]?.[0];
  return root === undefined || value === undefined ? undefined : { root, value: value === '' ? {} : value };
};

/** The children named `name` of `value` (none when it is text). */
export const childrenOf = (value: XmlValue | undefined, name: string): XmlValue[] =>
  value === undefined || typeof value === 'string' ? [] : (value[name] ?? []);

/** The text of the first child named `name`, undefined when there is none (or it has children). */
export const textOf = (value: XmlValue | undefined, name: string): string | undefined => {
  const [first] = childrenOf(value, name);
  if (first === undefined) return undefined;
  return typeof first === 'string' ? first : Object.keys(first).length === 0 ? '' : undefined;
};
