/**
 * Renders page 1 of each lease contract variant to PNG in docs/contracts/ (needs pdftoppm from
 * poppler-utils): `node test/support/renderContractSamples.ts`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import {
  CONTRACT_LEASE_TYPES,
  renderLeaseContract,
} from "../../src/commands/leases/contract/renderLeaseContract.ts";
import { sampleContract } from "./leaseContractSample.ts";

const dir = new URL("../../docs/contracts/", import.meta.url).pathname;
mkdirSync(dir, { recursive: true });
for (const type of CONTRACT_LEASE_TYPES) {
  const name = `lease-contract-${type.toLowerCase()}`;
  const pdf = await renderLeaseContract(sampleContract(type));
  writeFileSync(`${dir}${name}.pdf`, pdf);
  execFileSync("pdftoppm", [
    "-png",
    "-r",
    "80",
    "-f",
    "1",
    "-l",
    "1",
    "-singlefile",
    `${dir}${name}.pdf`,
    `${dir}${name}-page1`,
  ]);
  console.log(`${dir}${name}-page1.png`);
}
