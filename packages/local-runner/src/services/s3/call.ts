// One request to the local S3, as its operations see it, and what they answer.
import type { IncomingHttpHeaders } from 'node:http';
import type { ObjectChange } from '../s3-change.ts';
import type { ChunkSigning } from './payload.ts';
import type { ObjectStore } from './store.ts';

export interface S3Call {
  method: string;
  /** The bucket the host or the path names; undefined for the service itself (ListBuckets). */
  bucket: string | undefined;
  /** The object's key, decoded; undefined for a bucket's operations. */
  key: string | undefined;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The body as sent (still `aws-chunked` when so sent). */
  body: Buffer;
  /** What checks a signed chunked upload's chunk signatures. */
  signing: ChunkSigning | undefined;
  requestId: string;
  sourceIp: string;
}

export interface S3Answer {
  status: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** What the operations work with: the store, and the listeners told of each change once stored. */
export interface S3Context {
  store: ObjectStore;
  changed: (change: ObjectChange) => void;
}

/** The call's one header `name`'s value, if sent. */
export const header = (call: S3Call, name: string) => {
  const value = call.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
};

export const xmlAnswer = (body: string, headers: Record<string, string> = {}, status = 200): S3Answer => ({
  status,
  headers: { 'Content-Type': 'application/xml', ...headers },
  body,
});
