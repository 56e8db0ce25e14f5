/** The artifacts area's public surface: other areas import it from here only. */
export { openArtifactStore } from "./store.ts";
export type { ArtifactStore, CarExport } from "./store.ts";
export { Artifacts } from "./service.ts";
export type { ArtifactOwner, ArtifactUsage, QuotaLimits } from "./service.ts";
