// Where a user of the installed package reads the documentation: the
// repository's docs/ (the tarball does not ship docs/). The messages and the
// CLI's --help link a page of it; package.json's repository, homepage and
// bugs name the same repository (maintainers who move it change both).

export const REPOSITORY_URL = "https://github.com/wasi-thread-pool/wasi-thread-pool";
export const DOCS_URL = `${REPOSITORY_URL}/tree/main/docs`;

// The page (and its anchor) of docs/ on the repository's main branch.
export function docsLink(page, anchor = "") {
  return `${REPOSITORY_URL}/blob/main/docs/${page}${anchor ? `#${anchor}` : ""}`;
}
