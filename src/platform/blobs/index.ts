import type { Sql } from "../db.ts";
import type { BlobStore } from "./blobStore.ts";
import { sqlBlobStore } from "./sqlBlobStore.ts";

export type { BlobInfo, BlobStore, StoredBlob } from "./blobStore.ts";
export { blobKey } from "./blobStore.ts";
export { sqlBlobStore } from "./sqlBlobStore.ts";

const stores = new WeakMap<Sql, BlobStore>();

/**
 * The blob store of a platform. Only the PostgreSQL adapter exists today; an S3 adapter
 * would be chosen here from configuration (e.g. a `BLOB_STORE_URL=s3://bucket/prefix`).
 */
export function blobStoreFor(sql: Sql): BlobStore {
  let store = stores.get(sql);
  if (!store) {
    store = sqlBlobStore(sql);
    stores.set(sql, store);
  }
  return store;
}
