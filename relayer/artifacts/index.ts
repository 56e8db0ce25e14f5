/** The artifacts area's public surface: other areas import it from here only. */
export { openArtifactStore } from "./store.ts";
export type { ArtifactStore } from "./store.ts";
