import type { LesseeData } from "../../src/events/lessees.ts";
import { sleep } from "./stats.ts";

/** A realistic create body: an individual with the usual fields filled in. */
export function lesseeBody(email: string, n: number): Record<string, unknown> {
  return {
    category: "individual",
    title: "Mme",
    first_name: "Camille",
    last_name: `Martin ${n}`,
    birth_date: "1990-04-12",
    birth_place: "Lyon",
    email,
    mobile_phone: "+33612345678",
    address_street: "12 rue de la Paix",
    address_postal_code: "75002",
    address_city: "Paris",
    address_country: "FR",
    profession: "Engineer",
    employer_name: "ACME SAS",
    monthly_income: 3200,
    bank_name: "Banque Exemple",
    iban: "FR7630006000011234567890189",
    bic: "AGRIFRPP",
  };
}

/** The data of a LesseeRegistered event as the service records it: every field, absent ones null. */
export function lesseeRegisteredData(
  lessee_id: string,
  email: string,
  n: number,
): { lessee_id: string } & LesseeData {
  return {
    lessee_id,
    category: "individual",
    title: "Mme",
    first_name: "Camille",
    last_name: `Martin ${n}`,
    legal_name: null,
    birth_date: "1990-04-12",
    birth_place: "Lyon",
    email,
    mobile_phone: "+33612345678",
    landline_phone: null,
    address_street: "12 rue de la Paix",
    address_postal_code: "75002",
    address_city: "Paris",
    address_country: "FR",
    profession: "Engineer",
    employer_name: "ACME SAS",
    employer_phone: null,
    monthly_income: 3200,
    other_income: null,
    bank_name: "Banque Exemple",
    iban: "FR7630006000011234567890189",
    bic: "AGRIFRPP",
    additional_addresses: null,
    identity_documents: null,
    additional_contacts: null,
    custom_fields: null,
    auth_user_id: null,
  };
}

/** POSTs `count` lessees with a few concurrent requests; returns their ids (maybe not yet projected). */
export async function seedLessees(
  url: string,
  key: string,
  count: number,
  emailOf: (n: number) => string,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < count) {
        const n = next++;
        const res = await fetch(`${url}/api/lessees`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify(lesseeBody(emailOf(n), n)),
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await res.json()) as { id?: string };
        // 202: recorded, the read model lagging behind; the caller waits for readiness.
        if ((res.status !== 201 && res.status !== 202) || !body.id) {
          throw new Error(`seeding lessee ${n}: ${res.status} ${JSON.stringify(body)}`);
        }
        ids.push(body.id);
      }
    }),
  );
  return ids;
}

/** Until every projection of the service has passed the head of the log (bounded). */
export async function waitReady(url: string) {
  const deadline = Date.now() + 5 * 60_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/api/health/ready`).catch(() => null);
    if (res?.status === 200) return;
    await sleep(250);
  }
  throw new Error("the service's projections did not catch up within 5 minutes");
}
