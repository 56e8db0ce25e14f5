/**
 * The relayer's dependency rules (DEVELOPERS.md "Layers"), enforced by `npm run lint:deps`.
 * Type-only imports count: a type import is still an arrow a reader must follow.
 */
module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment: "Arrows point down: no module reaches itself again through its imports.",
      severity: "error",
      from: { path: "^relayer/" },
      to: { circular: true },
    },
    {
      name: "adapters-only-from-the-root",
      comment:
        "Route and worker modules are leaves: only the composition root (relayer/app/) imports them.",
      severity: "error",
      from: { path: "^relayer/", pathNot: "^relayer/app/" },
      to: { path: "^relayer/[^/]+/routes[.]ts$" },
    },
    {
      name: "root-only-from-entry-points",
      comment: "Nothing under relayer/ but the entry points imports the composition root.",
      severity: "error",
      from: {
        path: "^relayer/",
        pathNot: ["^relayer/app/", "^relayer/main[.]ts$", "^relayer/worker-main[.]ts$"],
      },
      to: { path: "^relayer/app/" },
    },
    {
      name: "areas-through-their-index",
      comment:
        "A folder of relayer/ imports another only through its index.ts, the area's public surface.",
      severity: "error",
      from: { path: "^relayer/([^/]+)/", pathNot: "^relayer/app/" },
      to: { path: "^relayer/[^/]+/.", pathNot: ["^relayer/$1/", "^relayer/[^/]+/index[.]ts$"] },
    },
    {
      name: "root-through-index-and-adapters",
      comment:
        "The composition root imports an area through its index.ts and mounts its adapters " +
        "(routes.ts, worker.ts), which no one else imports.",
      severity: "error",
      from: { path: "^relayer/app/" },
      to: {
        path: "^relayer/[^/]+/.",
        pathNot: ["^relayer/app/", "^relayer/[^/]+/(index|routes|worker)[.]ts$"],
      },
    },
    {
      name: "no-folder-cycles",
      comment:
        "No two folders of relayer/ import each other, directly or through a chain of folders: " +
        "every folder has a place in one order of layers.",
      severity: "error",
      scope: "folder",
      from: { path: "^relayer/" },
      to: { circular: true },
    },
    {
      name: "platform-below-areas",
      comment:
        "The platform (errors, config, storage, queue, deployments, chains, devnet, auth, limits, " +
        "HTTP kit, context) imports no area. The configuration holds the file formats of the " +
        "areas' own configuration, so that it parses every file once at start.",
      severity: "error",
      from: {
        path: "^relayer/(errors|config|store|queue|deployments|chains|devnet|auth|limits|http|context)/",
      },
      to: {
        path: "^relayer/(accounts|agents|analysis|app|artifacts|audit|compliance|execution|executions|integrations|model|monitors|proofs|report|routing|simulation|transactions|webhooks|workflows)/",
      },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "[.]d[.]ts$" },
  },
};
