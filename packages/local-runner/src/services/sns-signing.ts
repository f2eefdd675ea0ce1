// How the local SNS signs what it delivers, as "Verifying the signatures of Amazon SNS messages"
// (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html) describes: the message's fields
// in a fixed order, each `Name\nvalue\n`, signed with RSA, SHA1 for SignatureVersion 1 and SHA256 for 2 (the topic's
// SignatureVersion attribute), base64; the certificate at SigningCertURL, here served on the local SNS's own port.
// The key and its self-signed certificate (made with `selfsigned`) are kept in the data folder, so a message signed
// before a restart still verifies after it.
import { createHash, createSign } from 'node:crypto';
import type { StateFile } from './state-file.ts';

export interface SigningKey {
  privateKey: string;
  certificate: string;
}

export interface SigningState {
  key?: SigningKey;
}

export const emptySigning = (): SigningState => ({});

/**
 * The data folder's key: the one kept there, else made (and kept) when the first message is signed, not at start:
 * making it (an RSA key and its certificate, with selfsigned and the X.509 modules it loads) was about a quarter of
 * the runner's start (CPU time), paid by every app without a topic too. The file is read at start all the same: a
 * damaged one refuses the start, naming it (state-file.ts).
 */
export const snsSigningKey = (file: StateFile<SigningState>) => {
  file.read();
  let making: Promise<SigningKey> | undefined;
  const make = async () => {
    const kept = file.read().key;
    if (kept) return kept;
    const { generate } = await import('selfsigned');
    const made = await generate([{ name: 'commonName', value: 'sns.local.cdk-local-runner' }], {
      keySize: 2048,
      algorithm: 'sha256',
    });
    const key = { privateKey: made.private, certificate: made.cert };
    file.write({ key });
    return key;
  };
  return {
    /** The key, made the first time it is asked for. */
    get: (): Promise<SigningKey> => {
      making ??= make();
      return making;
    },
    /** The key if there is one yet (kept, or made for a message): whose certificate SigningCertURL serves. */
    current: (): SigningKey | undefined => file.read().key,
  };
};

export type SnsSigningKey = ReturnType<typeof snsSigningKey>;

/** The certificate's file name, as SNS's (`SimpleNotificationService-<id>.pem`), its id from the certificate. */
export const certificatePath = (key: SigningKey) =>
  `/SimpleNotificationService-${createHash('sha256').update(key.certificate).digest('hex').slice(0, 32)}.pem`;

/** The fields signed, in order, for each message type (the page's "string to sign"). */
const signedFields = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
  UnsubscribeConfirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
} as const;

/** The text signed for `message` (its Type's fields, each present one `Name\nvalue\n`). */
export const stringToSign = (message: Record<string, string | undefined>) => {
  const fields = signedFields[message.Type as keyof typeof signedFields] ?? signedFields.Notification;
  return fields
    .filter((field) => message[field] !== undefined)
    .map((field) => `${field}\n${message[field]}\n`)
    .join('');
};

/** The Signature of `message` for SignatureVersion `version` ('1' SHA1withRSA, '2' SHA256withRSA). */
export const signatureOf = (key: SigningKey, message: Record<string, string | undefined>, version: string) =>
  createSign(version === '2' ? 'RSA-SHA256' : 'RSA-SHA1')
    .update(stringToSign(message))
    .sign(key.privateKey, 'base64');
