import { mediaResource } from "../../events/media.ts";
import { resourceDecider } from "../../platform/resource/decider.ts";

/** The route has already stored the bytes (blob store) and measured them; this records the fact. */
export const mediaDecider = resourceDecider(mediaResource);
