import Handlebars from "handlebars";
import { compileTemplate } from "../src/platform/pdf/renderTemplate.ts";
import { TEMPLATE_SAMPLES } from "../src/events/settings.ts";
const src = "{{money call.rent_amount}} ".repeat(2400).slice(0, 65536);
for (let i = 0; i < 2; i++) {
let t0 = performance.now(); Handlebars.parse(src); console.log("parse", Math.round(performance.now() - t0));
t0 = performance.now(); const f = compileTemplate(src); console.log("compile(lazy)", Math.round(performance.now() - t0));
t0 = performance.now(); f(TEMPLATE_SAMPLES.recu); console.log("render1", Math.round(performance.now() - t0));
t0 = performance.now(); f(TEMPLATE_SAMPLES.recu); console.log("render2", Math.round(performance.now() - t0));
}
