/**
 * The blob store port: opaque keys to immutable bytes. The default adapter keeps them in
 * PostgreSQL (the `blobs` table); an S3 adapter implements the same calls with
 * PutObject / multipart upload / GetObject / DeleteObject and the same key scheme.
 */
export interface BlobInfo {
  key: string;
  content_type: string;
  size: number;
  /** Hex SHA-256 of the bytes. */
  sha256: string;
}

export interface StoredBlob extends BlobInfo {
  bytes: Buffer;
}

export interface BlobStore {
  /** Stores the bytes under key; storing the same key again replaces them (retries are safe). */
  putBlob(key: string, bytes: Uint8Array, options: { content_type: string }): Promise<BlobInfo>;
  /**
   * Stores chunks as they come (uploads), hashing and counting them, never holding the whole
   * content. When `chunks` throws (e.g. an upload over its limit) nothing stays stored.
   */
  putBlobStream(
    key: string,
    chunks: AsyncIterable<Uint8Array>,
    options: { content_type: string },
  ): Promise<BlobInfo>;
  /** The bytes and their metadata, or null when the key holds nothing. */
  getBlob(key: string): Promise<StoredBlob | null>;
  /** Removes the key; true when something was removed. */
  deleteBlob(key: string): Promise<boolean>;
}

/** Keys carry the tenant first, so one tenant's content can be listed, moved or purged by prefix. */
export const blobKey = (tenantId: string, kind: string, id: string) => `tenants/${tenantId}/${kind}/${id}`;
