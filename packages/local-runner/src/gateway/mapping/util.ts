// A mapping template's `$util` ("Variables for data transformations for API Gateway", `$util` variables,
// https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-mapping-template-reference.html): the six
// functions API Gateway documents, as the Java library calls beneath them behave (escapeJavaScript as Apache Commons
// Lang's StringEscapeUtils.escapeJavaScript, urlEncode/urlDecode as java.net.URLEncoder/URLDecoder in UTF-8).

/** A UTF-16 code unit as `\uXXXX`, upper-case hex, as Commons Lang writes it. */
const unicodeEscape = (code: number) => `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;

const named: Record<string, string> = {
  '\b': '\\b',
  '\n': '\\n',
  '\t': '\\t',
  '\f': '\\f',
  '\r': '\\r',
  "'": "\\'",
  '"': '\\"',
  '\\': '\\\\',
  '/': '\\/',
};

/**
 * "Escapes the characters in a string using JavaScript string rules": quotes, backslash and slash escaped with a
 * backslash, the named control characters by name, any other below 32 or above 127 as `\uXXXX` (each half of a
 * surrogate pair apart). A single quote becomes `\'`, which "is not valid in JSON" (the page's note).
 */
const escapeJavaScript = (text: unknown) => {
  let escaped = '';
  for (const char of String(text ?? '')) {
    for (let index = 0; index < char.length; index += 1) {
      const unit = char[index] as string;
      const code = unit.charCodeAt(0);
      escaped += named[unit] ?? (code < 32 || code > 0x7f ? unicodeEscape(code) : unit);
    }
  }
  return escaped;
};

/** application/x-www-form-urlencoded as java.net.URLEncoder writes it: `*-._` and alphanumerics kept, space as `+`. */
const urlEncode = (text: unknown) =>
  encodeURIComponent(String(text ?? ''))
    .replace(/[!'()~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+');

const urlDecode = (text: unknown) => decodeURIComponent(String(text ?? '').replaceAll('+', ' '));

const base64Encode = (text: unknown) => Buffer.from(String(text ?? ''), 'utf8').toString('base64');

const base64Decode = (text: unknown) => Buffer.from(String(text ?? ''), 'base64').toString('utf8');

const parseJson = (text: unknown): unknown => JSON.parse(String(text));

/** `$util`: a fresh object per render, so a template's `#set` on it changes nothing else. */
export const utilVariable = () => ({ escapeJavaScript, parseJson, urlEncode, urlDecode, base64Encode, base64Decode });

/** The names `$util` has. */
export const utilFunctions: ReadonlySet<string> = new Set(Object.keys(utilVariable()));
