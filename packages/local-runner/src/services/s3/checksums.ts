// The checksums S3 checks and returns ("Checking object integrity in Amazon S3", Amazon S3 User Guide,
// https://docs.aws.amazon.com/AmazonS3/latest/userguide/checking-object-integrity.html): CRC-32, CRC-32C, CRC-64/NVME,
// SHA-1 and SHA-256 of the object's bytes, each base64 of its big-endian digest, in `x-amz-checksum-<algorithm>`.
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { crc32c } from '@aws-crypto/crc32c';
import type { ChecksumAlgorithm } from './store.ts';

const checksumAlgorithms: readonly ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];

/** The header that carries `algorithm`'s checksum. */
export const checksumHeader = (algorithm: ChecksumAlgorithm) => `x-amz-checksum-${algorithm.toLowerCase()}`;

/**
 * CRC-64/NVME (reflected, polynomial 0xad93d23594c93659 reversed, initial and final value all ones), eight bytes at a
 * time ("slicing-by-8": table k holds a byte's effect k bytes further on), each 64-bit value kept as two 32-bit halves,
 * which JavaScript computes far quicker than bigints.
 */
const crc64Tables = (() => {
  const poly = 0x9a6c9329ac4bc9b5n;
  const tables: bigint[] = [];
  for (let n = 0n; n < 256n; n += 1n) {
    let value = n;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1n ? (value >> 1n) ^ poly : value >> 1n;
    tables.push(value);
  }
  for (let index = 256; index < 8 * 256; index += 1) {
    const previous = tables[index - 256] as bigint;
    tables.push((previous >> 8n) ^ (tables[Number(previous & 0xffn)] as bigint));
  }
  return {
    high: Uint32Array.from(tables, (value) => Number(value >> 32n)),
    low: Uint32Array.from(tables, (value) => Number(value & 0xffffffffn)),
  };
})();

/** Table `k`'s entry for `byte`: its high and low halves are at the same index. */
const at = (k: number, byte: number) => k * 256 + byte;

const crc64nvme = (data: Uint8Array) => {
  const { high: h, low: l } = crc64Tables;
  let hi = 0xffffffff;
  let lo = 0xffffffff;
  let i = 0;
  for (const whole = data.length - (data.length % 8); i < whole; i += 8) {
    const a =
      (lo ^
        ((data[i] as number) |
          ((data[i + 1] as number) << 8) |
          ((data[i + 2] as number) << 16) |
          ((data[i + 3] as number) << 24))) >>>
      0;
    const b =
      (hi ^
        ((data[i + 4] as number) |
          ((data[i + 5] as number) << 8) |
          ((data[i + 6] as number) << 16) |
          ((data[i + 7] as number) << 24))) >>>
      0;
    const t = [
      at(7, a & 0xff),
      at(6, (a >>> 8) & 0xff),
      at(5, (a >>> 16) & 0xff),
      at(4, a >>> 24),
      at(3, b & 0xff),
      at(2, (b >>> 8) & 0xff),
      at(1, (b >>> 16) & 0xff),
      at(0, b >>> 24),
    ] as const;
    hi =
      ((h[t[0]] as number) ^
        (h[t[1]] as number) ^
        (h[t[2]] as number) ^
        (h[t[3]] as number) ^
        (h[t[4]] as number) ^
        (h[t[5]] as number) ^
        (h[t[6]] as number) ^
        (h[t[7]] as number)) >>>
      0;
    lo =
      ((l[t[0]] as number) ^
        (l[t[1]] as number) ^
        (l[t[2]] as number) ^
        (l[t[3]] as number) ^
        (l[t[4]] as number) ^
        (l[t[5]] as number) ^
        (l[t[6]] as number) ^
        (l[t[7]] as number)) >>>
      0;
  }
  for (; i < data.length; i += 1) {
    const index = (lo ^ (data[i] as number)) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ (l[index] as number)) >>> 0;
    hi = ((hi >>> 8) ^ (h[index] as number)) >>> 0;
  }
  const digest = Buffer.alloc(8);
  digest.writeUInt32BE(~hi >>> 0, 0);
  digest.writeUInt32BE(~lo >>> 0, 4);
  return digest;
};

const uint32 = (value: number) => {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(value >>> 0);
  return digest;
};

/** `algorithm`'s digest of `data`. */
export const checksumDigest = (algorithm: ChecksumAlgorithm, data: Uint8Array): Buffer => {
  switch (algorithm) {
    case 'CRC32':
      return uint32(crc32(data));
    case 'CRC32C':
      return uint32(crc32c(data));
    case 'CRC64NVME':
      return crc64nvme(data);
    case 'SHA1':
      return createHash('sha1').update(data).digest();
    case 'SHA256':
      return createHash('sha256').update(data).digest();
  }
};

export const checksumOf = (algorithm: ChecksumAlgorithm, data: Uint8Array) =>
  checksumDigest(algorithm, data).toString('base64');

/** The algorithm a header or parameter names (`crc32`, `CRC32`), if it names one. */
export const algorithmNamed = (name: string | undefined) =>
  checksumAlgorithms.find((algorithm) => algorithm === name?.toUpperCase());
