// Style sheets imported by the page's modules (Vite bundles them) are nothing to Node: an empty module.
export async function load(url, context, next) {
  if (url.endsWith(".css")) return { format: "module", source: "", shortCircuit: true };
  return next(url, context);
}
