import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { notFound } from "../../platform/errors.ts";
import { tenantOf } from "../../platform/http/auth.ts";
import { answers, fileBytes } from "../../platform/http/responses.ts";
import { uuid } from "../../platform/http/schemas.ts";
import { renderMarkup } from "../../platform/pdf/renderMarkup.ts";
import { readLeaseContractFacts } from "../../queries/leaseContractFacts.ts";
import { leaseParams } from "../../queries/leases.ts";
import { contentDisposition } from "../../queries/media.ts";
import { buildLeaseContract } from "./contract/buildLeaseContract.ts";
import { guaranteeActMarkup } from "./contract/guaranteeAct.ts";
import { TEMPLATE_VERSION } from "./contract/renderLeaseContract.ts";

/**
 * The acte de cautionnement of a lease's guarantor (loi n° 89-462 art. 22-1, code civil art. 2297;
 * docs/documents.md): made from the lease's contract facts at each request, rendered on a render
 * thread. A lessee who is not an active Guarantor of the lease is a 404.
 */
export async function guaranteeActRoutes(app: FastifyInstance): Promise<void> {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const { sql } = app.platform;
  api.get(
    "/api/leases/:lease_id/guarantees/:lessee_id/pdf",
    {
      schema: {
        tags: ["Leases"],
        summary:
          "The guarantee act (acte de cautionnement) of one of the lease's guarantors (PDF; loi n° 89-462 art. 22-1, code civil art. 2297)",
        params: leaseParams.extend({ lessee_id: uuid() }),
        response: answers(fileBytes),
      },
      config: { access: "LeasesRead" },
    },
    async (request, reply) => {
      const { lease_id, lessee_id } = request.params;
      const facts = await readLeaseContractFacts(sql, tenantOf(request), lease_id, TEMPLATE_VERSION);
      if (!facts) throw notFound("Lease", lease_id);
      const guarantors = facts.parties.filter((p) => p.role === "Guarantor");
      const at = guarantors.findIndex((p) => String(p.lessee.id) === lessee_id);
      if (at < 0) throw notFound("Guarantee of lessee", lessee_id);
      const contract = buildLeaseContract(facts);
      const bytes = await renderMarkup(
        guaranteeActMarkup(contract, contract.guarantors[at]),
        "Acte de cautionnement solidaire",
      );
      return reply
        .header("content-type", "application/pdf")
        .header("content-length", String(bytes.byteLength))
        .header("content-disposition", contentDisposition("attachment", "acte-de-cautionnement.pdf"))
        .send(bytes);
    },
  );
}
