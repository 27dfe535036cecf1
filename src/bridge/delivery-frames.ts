/**
 * A subscriber's stored deliveries as frames. Version 2: binary records, the records of one read
 * joined into frames of at most RECORDS_PER_FRAME_BYTES (one record over it goes alone). Version 1,
 * and a delivery a record cannot carry exactly (fitsDeliveryFrame): a JSON frame each.
 */
import { encodeDeliveryFrame, encodeServerFrame, fitsDeliveryFrame, type BridgeDelivery, type BridgeVersion } from '../core/bridge-protocol.js';
import type { StoredDelivery } from '../core/records.js';

const RECORDS_PER_FRAME_BYTES = 1024 * 1024;

export interface EncodedDelivery {
  /** A binary record (joined with its neighbours by the packer), or a JSON frame of its own. */
  data: Buffer | string;
  bytes: number;
}

export function encodeForSubscriber(d: StoredDelivery, version: BridgeVersion): EncodedDelivery {
  const delivery: BridgeDelivery = { seq: d.seq, id: d.id, trigger: d.trigger, receivedAt: d.receivedAt, headers: d.headers, body: Buffer.from(d.rawBody.buffer, d.rawBody.byteOffset, d.rawBody.byteLength), signature: d.signature, secretIndex: d.secretIndex, signatureTimestamp: d.signatureTimestamp };
  if (version === 2 && fitsDeliveryFrame(delivery)) {
    const record = encodeDeliveryFrame(delivery);
    return { data: record, bytes: record.length };
  }
  const frame = encodeServerFrame({ type: 'delivery', delivery });
  return { data: frame, bytes: Buffer.byteLength(frame) };
}

/** Sends encoded deliveries in order: records held back to share a frame until `flush`, a JSON frame at once. */
export function framePacker(send: (frame: Buffer | string) => void): { add(encoded: EncodedDelivery): void; flush(): void } {
  const records: Buffer[] = [];
  let recordBytes = 0;
  const flush = () => {
    if (records.length === 0) return;
    send(records.length === 1 ? records[0]! : Buffer.concat(records, recordBytes));
    records.length = 0;
    recordBytes = 0;
  };
  return {
    add({ data, bytes }) {
      if (typeof data === 'string') {
        flush(); // in order: what came before this JSON frame leaves first
        send(data);
        return;
      }
      if (recordBytes + bytes > RECORDS_PER_FRAME_BYTES) flush();
      records.push(data);
      recordBytes += bytes;
    },
    flush,
  };
}
