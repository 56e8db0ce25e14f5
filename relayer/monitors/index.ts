export {
  diffCollections,
  Monitors,
  type MonitorChange,
  type MonitorChangeView,
  type MonitorState,
  type MonitorView,
} from "./monitor.ts";
export { monitorRoutes } from "./routes.ts";
