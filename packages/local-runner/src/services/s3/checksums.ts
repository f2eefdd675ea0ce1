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

/** CRC-64/NVME (reflected, polynomial 0xad93d23594c93659 reversed, initial and final value all ones), by table. */
const crc64Table = (() => {
  const poly = 0x9a6c9329ac4bc9b5n;
  const table: bigint[] = [];
  for (let n = 0n; n < 256n; n += 1n) {
    let value = n;
    for (let bit = 0; bit < 8; bit += 1) value = value & 1n ? (value >> 1n) ^ poly : value >> 1n;
    table.push(value);
  }
  // Split in halves: 32-bit numbers are far quicker than bigints byte by byte.
  return {
    high: Uint32Array.from(table, (v) => Number(v >> 32n)),
    low: Uint32Array.from(table, (v) => Number(v & 0xffffffffn)),
  };
})();

const crc64nvme = (data: Uint8Array) => {
  const { high, low } = crc64Table;
  let hi = 0xffffffff;
  let lo = 0xffffffff;
  for (const byte of data) {
    const index = (lo ^ byte) & 0xff;
    // (crc >> 8) ^ table[index], on the two halves.
    lo = (((lo >>> 8) | (hi << 24)) ^ (low[index] as number)) >>> 0;
    hi = ((hi >>> 8) ^ (high[index] as number)) >>> 0;
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
