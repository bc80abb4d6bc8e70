import type { Config } from "../config.ts";
import type { Sql } from "../db.ts";
import { type PersonalDataCodec, type PersonalDataDeclaration, personalDataCodec } from "./codec.ts";
import { createKeyring, DEVELOPMENT_MASTER_KEY, parseMasterKey } from "./keyring.ts";

/**
 * The codec of this service: the areas' personal fields (src/events/personalData.ts), the master
 * key of PMS_DATA_KEY (or the development one), keys in `sql`.
 */
export function personalDataCodecOf(
  config: Pick<Config, "PMS_DATA_KEY" | "EVENTSTORE_URL">,
  sql: Sql,
  declaration: PersonalDataDeclaration,
): PersonalDataCodec {
  const master = parseMasterKey(config.PMS_DATA_KEY) ?? DEVELOPMENT_MASTER_KEY;
  return personalDataCodec(
    declaration,
    createKeyring(sql, master, { logInSameDatabase: !config.EVENTSTORE_URL }),
  );
}
