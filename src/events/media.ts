import type { DomainEvent } from "../platform/decider.ts";

/** Content types the service stores, each recognised by its magic bytes. */
export const MEDIA_CONTENT_TYPES = [
  "application/pdf",
  "image/jpeg",
  "image/png",
  "image/gif",
  "image/webp",
] as const;
export type MediaContentType = (typeof MEDIA_CONTENT_TYPES)[number];

export interface MediaMetadata {
  media_id: string;
  filename: string;
  content_type: MediaContentType;
  size: number;
  sha256: string;
  /** Where the bytes are in the blob store; the store is a port, so the key is opaque. */
  blob_key: string;
}

/** Stream `media-<uuid>`; created_at is the event's metadata.occurred_at. */
export type MediaEvent = DomainEvent<"MediaUploaded", MediaMetadata>;

export type MediaEventType = MediaEvent["type"];
export const mediaEventTypes: readonly MediaEventType[] = ["MediaUploaded"];

export const mediaStream = (id: string) => `media-${id}`;
