import { updatePlaceSchema } from "../src/commands/places/schemas.ts";
console.log(JSON.stringify(updatePlaceSchema.safeParse({ name: null }).error?.issues));
console.log(JSON.stringify(updatePlaceSchema.safeParse({ name: 3 }).error?.issues));
console.log(JSON.stringify(updatePlaceSchema.safeParse({ name: " x " , description: null})));
console.log(JSON.stringify(updatePlaceSchema.safeParse({ name: "" }).error?.issues));
