import { mediaResource } from "../events/media.ts";
import { resourceProjection } from "../platform/resource/projection.ts";

/** The `media` read model: metadata of uploaded files; the bytes are in the blob store under blob_key. */
export const mediaProjection = resourceProjection(mediaResource);
