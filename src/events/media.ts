import type { MediaContentType } from "../platform/blobs/uploads.ts";
import type { Decider, DomainEvent } from "../platform/decider.ts";

export { MEDIA_CONTENT_TYPES, type MediaContentType } from "../platform/blobs/uploads.ts";

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

export type MediaState = { status: "absent" } | { status: "uploaded"; media: MediaMetadata };

/** The fold of a media stream: the decider's state and the facts other areas look up. */
export const mediaFold: Pick<Decider<MediaState, unknown, MediaEvent>, "initialState" | "evolve"> = {
  initialState: () => ({ status: "absent" }),
  evolve(state, event) {
    switch (event.type) {
      case "MediaUploaded":
        return { status: "uploaded", media: event.data };
      default:
        return state;
    }
  },
};
