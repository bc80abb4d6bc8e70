import { type MediaEvent, type MediaMetadata, type MediaState, mediaFold } from "../../events/media.ts";
import type { Decider } from "../../platform/decider.ts";
import { conflict } from "../../platform/errors.ts";

/** The route has already stored the bytes (blob store) and measured them; this records the fact. */
export type MediaCommand = { type: "RecordMediaUpload"; media: MediaMetadata };

export const mediaDecider: Decider<MediaState, MediaCommand, MediaEvent> = {
  ...mediaFold,
  decide(command, state) {
    switch (command.type) {
      case "RecordMediaUpload":
        if (state.status !== "absent") throw conflict(`Media ${command.media.media_id} already exists`);
        return [{ type: "MediaUploaded", data: command.media }];
    }
  },
};
