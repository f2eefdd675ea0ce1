// The key of an S3 event record, URL-encoded as S3 encodes it ("Event message structure", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/notification-content-structure.html: "The object key name value
// is URL encoded. For example, "red flower.jpg" becomes "red+flower.jpg""), judged for any key of valid UTF-8 by what a
// function does with it: Python's `urllib.parse.unquote_plus` (the decoding the Lambda developer guide's S3 example
// uses), written here apart from the encoder, gives the key back; and the record holds nothing a URL's form encoding
// leaves out (letters, digits, `*-._`, `+` for a space, `%XX`, and `/`, which S3 leaves as it is).
import { expect, test } from '@jest/globals';
import fc from 'fast-check';
import { encodedKey } from '../../src/events/s3-events.ts';

/** `unquote_plus`: `+` is a space, each `%XX` a byte, the bytes read as UTF-8. */
const unquotePlus = (text: string) => {
  const bytes: number[] = [];
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at] as string;
    if (char === '+') bytes.push(0x20);
    else if (char === '%') {
      bytes.push(Number.parseInt(text.slice(at + 1, at + 3), 16));
      at += 2;
    } else bytes.push(...Buffer.from(char));
  }
  return Buffer.from(bytes).toString('utf8');
};

test('any key comes back from its record by unquote_plus, and is written with form-encoding characters alone', () => {
  const key = fc.string({
    unit: fc.oneof(
      fc.constantFrom(...' /+%=&?#:()~!*\'"-._'.split('')),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    minLength: 1,
    maxLength: 64,
  });
  fc.assert(
    fc.property(key, (given) => {
      const encoded = encodedKey(given);
      expect(encoded).toMatch(/^(?:[A-Za-z0-9*\-._+/]|%[0-9A-F]{2})*$/);
      expect(unquotePlus(encoded)).toBe(given);
      // A space is `+`, and `/` itself, never their `%XX`.
      expect(encoded).not.toMatch(/%20|%2F/);
    }),
  );
});
