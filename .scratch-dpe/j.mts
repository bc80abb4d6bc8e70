import { z } from "/work/main/node_modules/zod/index.js";
import { createEnergyDiagnosisBody, updateEnergyDiagnosisBody } from "/work/main/src/commands/energyDiagnoses/schemas.ts";
console.log(JSON.stringify(z.toJSONSchema(createEnergyDiagnosisBody, { unrepresentable: "any" }).properties.diagnosis_date));
console.log(updateEnergyDiagnosisBody.safeParse({ valid_until: null }).error?.issues[0].message, createEnergyDiagnosisBody.safeParse({diagnosis_date: "2020-02-30"}).error?.issues.find(i=>i.path[0]==="diagnosis_date")?.message);
