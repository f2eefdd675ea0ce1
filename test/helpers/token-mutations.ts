// Mutations of valid compact JWTs (RFC 7515 section 7.1: three base64url parts joined by dots), as fast-check
// arbitraries: what an attacker, a broken client or a proxy may do to a token's bytes. None of them is a token the
// issuer signed, except where a test says so.
import fc from 'fast-check';

const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const parts = (token: string) => token.split('.') as [string, string, string];
const join = ([header, payload, signature]: string[]) => `${header}.${payload}.${signature}`;
const b64 = (bytes: Buffer) => bytes.toString('base64url');

/** The order n of P-256 (SEC 2, section 2.4.2): an ECDSA scalar r or s must lie in [1, n - 1]. */
const p256Order = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const scalar = (bytes: Buffer) => BigInt(`0x${bytes.toString('hex') || '0'}`);
/** A scalar as `length` big-endian bytes (or as few as it needs, when longer). */
const bytesOf = (value: bigint, length: number) => {
  const hex = value.toString(16);
  return Buffer.from(hex.padStart(Math.max(length * 2, hex.length + (hex.length % 2)), '0'), 'hex');
};

/** ASN.1 DER: SEQUENCE { INTEGER r, INTEGER s }, the form OpenSSL signs in and JWS does not use (RFC 7518 3.4). */
export const derSignature = (r: bigint, s: bigint) => {
  const integer = (value: bigint) => {
    let bytes = bytesOf(value, 1);
    while (bytes.length > 1 && bytes[0] === 0 && ((bytes[1] ?? 0) & 0x80) === 0) bytes = bytes.subarray(1);
    if (((bytes[0] ?? 0) & 0x80) !== 0) bytes = Buffer.concat([Buffer.from([0]), bytes]);
    return Buffer.concat([Buffer.from([0x02, bytes.length]), bytes]);
  };
  const body = Buffer.concat([integer(r), integer(s)]);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
};

/** An ES256 token's signature as its scalars r and s (RFC 7518 3.4: 32 bytes each, concatenated). */
export const ecdsaScalars = (token: string) => {
  const signature = Buffer.from(parts(token)[2], 'base64url');
  return { r: scalar(signature.subarray(0, 32)), s: scalar(signature.subarray(32)) };
};

/** The token with its signature replaced by `signature`. */
export const withSignature = (token: string, signature: Buffer) => {
  const [header, payload] = parts(token);
  return join([header, payload, b64(signature)]);
};

/** The high-S twin of an ES256 signature: (r, n - s), an equally valid ECDSA signature of the same input. */
export const highSTwin = (token: string) => {
  const { r, s } = ecdsaScalars(token);
  return withSignature(token, Buffer.concat([bytesOf(r, 32), bytesOf(p256Order - s, 32)]));
};

const partIndex = fc.integer({ min: 0, max: 2 });
const base64urlChars = (maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength: 1, maxLength });

/** Truncates or extends one of the three parts. */
const resized = (token: string) =>
  fc.oneof(
    fc
      .tuple(partIndex, fc.integer({ min: 1, max: 400 }))
      .map(([index, cut]) => join(parts(token).map((part, at) => (at === index ? part.slice(0, -cut) : part)))),
    fc
      .tuple(partIndex, base64urlChars(8))
      .map(([index, extra]) => join(parts(token).map((part, at) => (at === index ? part + extra : part)))),
  );

/** One character of one part replaced by another of the alphabet. */
const flipped = (token: string) =>
  fc.tuple(partIndex, fc.nat(), fc.integer({ min: 1, max: alphabet.length - 1 })).map(([index, position, shift]) =>
    join(
      parts(token).map((part, at) => {
        if (at !== index || part === '') return part;
        const where = position % part.length;
        const next = alphabet[(alphabet.indexOf(part[where] ?? 'A') + shift) % alphabet.length];
        return part.slice(0, where) + next + part.slice(where + 1);
      }),
    ),
  );

/** What lenient base64 decoders accept: padding, the standard alphabet's + and /, the unused bits of the last char. */
const encodingOddities = (token: string) =>
  fc.tuple(partIndex, fc.constantFrom('pad', 'plus-slash', 'last-bits', 'standard-char')).map(([index, oddity]) =>
    join(
      parts(token).map((part, at) => {
        if (at !== index) return part;
        if (oddity === 'pad') return `${part}${'='.repeat((4 - (part.length % 4)) % 4 || 4)}`;
        if (oddity === 'plus-slash') return part.replaceAll('-', '+').replaceAll('_', '/').replace(/^./, '+');
        if (oddity === 'standard-char') return `${part.slice(0, 1)}/${part.slice(1)}`;
        // The same bytes with other unused low bits in the last character (where the length leaves any).
        const last = alphabet.indexOf(part.at(-1) ?? 'A');
        return part.slice(0, -1) + alphabet[last ^ 1];
      }),
    ),
  );

/** An ES256 signature re-encoded or replaced: DER, leading zeros, scalars of 0 or n or more. */
const reencodedSignature = (token: string) => {
  const { r, s } = ecdsaScalars(token);
  const fixed = (a: bigint, b: bigint) => Buffer.concat([bytesOf(a, 32), bytesOf(b, 32)]);
  return fc
    .constantFrom(
      derSignature(r, s),
      derSignature(0n, 0n),
      derSignature(r, 0n),
      Buffer.concat([Buffer.from([0]), bytesOf(r, 32), Buffer.from([0]), bytesOf(s, 32)]),
      Buffer.concat([Buffer.from([0]), fixed(r, s)]),
      Buffer.alloc(64),
      fixed(0n, s),
      fixed(r, 0n),
      fixed(p256Order, s),
      fixed(r, p256Order),
      fixed(r + p256Order < 2n ** 256n ? r + p256Order : 2n ** 256n - 1n, s),
      fixed(r, s + p256Order < 2n ** 256n ? s + p256Order : 2n ** 256n - 1n),
      Buffer.alloc(64, 0xff),
    )
    .map((signature) => withSignature(token, signature));
};

/** One part taken from another token. */
const swapped = (token: string, others: string[]) =>
  fc
    .tuple(partIndex, fc.constantFrom(...others))
    .map(([index, other]) =>
      join(parts(token).map((part, at) => (at === index ? (parts(other)[index] ?? part) : part))),
    );

/** A dot added, removed or doubled. */
const dots = (token: string) =>
  fc.oneof(
    fc.nat().map((position) => {
      const where = position % (token.length + 1);
      return `${token.slice(0, where)}.${token.slice(where)}`;
    }),
    fc.constantFrom(
      token.replace('.', ''),
      token.replace(/\.(?=[^.]*$)/, ''),
      token.replace('.', '..'),
      `${token}.`,
      `.${token}`,
      token.replaceAll('.', ''),
    ),
  );

/**
 * A mutation of one of `tokens`, one to three mutations deep; the ES256 ones (those of `ecTokens`) are also
 * re-encoded. Never one of the tokens themselves (a part swapped between tokens with the same header can give one back).
 */
export const mutatedToken = (tokens: string[], ecTokens: string[]) => {
  const originals = new Set(tokens);
  const once = (token: string): fc.Arbitrary<string> =>
    fc.oneof(
      resized(token),
      flipped(token),
      encodingOddities(token),
      swapped(token, tokens),
      dots(token),
      ...(ecTokens.includes(token) ? [reencodedSignature(token)] : []),
    );
  return fc
    .tuple(fc.constantFrom(...tokens), fc.integer({ min: 1, max: 3 }))
    .chain(([token, depth]) => {
      let mutated = once(token);
      // A further mutation where the last one left three parts.
      for (let step = 1; step < depth; step += 1) {
        mutated = mutated.chain((next) => (next.split('.').length === 3 ? once(next) : fc.constant(next)));
      }
      return mutated;
    })
    .filter((token) => !originals.has(token));
};
