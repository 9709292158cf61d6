"""Definition sites by shape, per language family (issue 33).

Lines marked "real" are copied from files installed on the machine this was written on
(the venv's rich, npm's own tree, OpenSSL and libstdc++ headers, Debian's Rust crates,
the Go sources and Ruby examples Debian ships, git's shell library); the others are
paraphrases of the same shapes. Every family also has uses of the symbol that are not
definitions.
"""

from __future__ import annotations

import pytest

from headroom.compressors.search.definitions import STRONG, WEAK, definition_rank, family_of


def rank(text: str, path: str, symbol: str) -> int | None:
    return definition_rank(text, family_of(path), frozenset({symbol}))


DEFINES = [
    # Python (real: rich/segment.py, rich/console.py; paraphrases)
    ("segment.py", "Segment", "class Segment(NamedTuple):"),
    ("segment.py", "cell_length", "    def cell_length(self) -> int:"),
    ("console.py", "Console", "class Console:"),
    ("app/io.py", "fetch_all", "    async def fetch_all(self, urls):"),
    ("app/types.py", "Pair", "type Pair[T] = tuple[T, T]"),
    # JavaScript / TypeScript (real: npm's lib/commands/install.js, libnpmsearch, undici,
    # safer-buffer, postcss-selector-parser; paraphrases)
    ("lib/commands/install.js", "Install", "class Install extends ArboristWorkspaceCmd {"),
    ("node_modules/libnpmsearch/lib/index.js", "search", "function search (query, opts) {"),
    ("node_modules/undici/lib/core/tree.js", "search", "  search (key) {"),
    ("node_modules/safer-buffer/safer.js", "alloc", "  Safer.alloc = function (size, fill, encoding) {"),
    ("dist/selectors/container.js", "every",
     "    Container.prototype.every = function (callback) {"),
    ("src/client.ts", "Client", "export default abstract class Client<T> {"),
    ("src/types.ts", "Options", "export interface Options {"),
    ("src/util.ts", "toArray", "export const toArray = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x])"),
    ("src/util.mjs", "parseArgs", "export async function parseArgs(argv) {"),
    ("src/store.ts", "reset", "  private async reset(force: boolean): Promise<void> {"),
    # Go (real: github.com/pkg/errors, git's contrib/persistent-https; paraphrases)
    ("errors.go", "New", "func New(message string) error {"),
    ("errors.go", "fundamental", "type fundamental struct {"),
    ("client.go", "connect", "func (c *Client) connect() (uconn net.Conn, hconn net.Conn, addr string, err error) {"),
    ("limits.go", "MaxDepth", "const MaxDepth = 32"),
    # Rust (real: memchr 2.5.0, libc 0.2.139; paraphrases)
    ("src/memchr/mod.rs", "memchr_iter", "pub fn memchr_iter(needle: u8, haystack: &[u8]) -> Memchr<'_> {"),
    ("src/wasi.rs", "dirent", "pub struct dirent {"),
    ("src/unix/bsd/apple/mod.rs", "attrgroup_t", "pub type attrgroup_t = u32;"),
    ("src/tests/memchr/testdata.rs", "needles", "    fn needles(&self, count: usize) -> Option<Vec<u8>> {"),
    ("src/macros.rs", "cfg_if", "macro_rules! cfg_if {"),
    ("src/lib.rs", "Searcher", "pub(crate) unsafe trait Searcher {"),
    ("src/lib.rs", "run", "    pub(crate) const unsafe fn run(&self) -> usize {"),
    # C / C++ (real: OpenSSL headers, libstdc++'s stl_algo.h; paraphrases)
    ("types.h", "EVP_PKEY_CTX", "typedef struct evp_pkey_ctx_st EVP_PKEY_CTX;"),
    ("aes.h", "aes_key_st", "struct aes_key_st {"),
    ("asn1.h", "ASN1_ENCODING_st", "typedef struct ASN1_ENCODING_st {"),
    ("safestack.h", "STACK_OF", "#define STACK_OF(type) struct stack_st_##type"),
    ("bits/stl_algo.h", "all_of", "    all_of(_InputIterator __first, _InputIterator __last, _Predicate __pred)"),
    ("bits/stl_algobase.h", "__find_if", "    __find_if(_InputIterator __first, _InputIterator __last,"),
    ("bits/shared_ptr.h", "make_shared", "    make_shared(size_t __n)"),
    ("src/buf.c", "buf_grow", "static int buf_grow(struct buf *b, size_t need)"),
    ("src/buf.c", "buf_free", "buf_free(struct buf *b)"),
    ("src/list.hpp", "List", "template <typename T> class List : public Base {"),
    ("src/list.cpp", "push", "void List::push(const T& value) {"),
    ("src/cb.h", "handler_fn", "typedef int (*handler_fn)(void *ctx, int code);"),
    ("src/opts.h", "opts_t", "} opts_t;"),
    # Java / Kotlin (paraphrases: no Java or Kotlin sources are installed here)
    ("src/main/java/a/Cache.java", "Cache", "public final class Cache<K, V> implements Closeable {"),
    ("src/main/java/a/Cache.java", "evict", "    private synchronized void evict(K key) {"),
    ("src/main/java/a/Cache.java", "lookup", "    public static <K> Optional<K> lookup(Map<K, ?> map, String name) {"),
    ("src/Main.kt", "render", "    suspend fun render(view: View): String {"),
    ("src/Main.kt", "Settings", "data class Settings(val path: String)"),
    # Ruby (real: redis-tools' redis-trib.rb example; paraphrases)
    ("redis-trib.rb", "parse_options", "def parse_options(cmd)"),
    ("redis-trib.rb", "String", "class String"),
    ("lib/app.rb", "valid", "  def self.valid?(x)"),
    ("lib/app.rb", "Helpers", "module App::Helpers"),
    # Shell (real: git's git-sh-setup; paraphrases), with and without an extension
    ("git-sh-setup", "die", "die () {"),
    ("git-sh-setup", "set_reflog_action", "set_reflog_action() {"),
    ("scripts/build.sh", "cleanup", "function cleanup {"),
    ("completions/tool", "_tool_complete", "_tool_complete()"),
]

USES = [
    ("console.py", "Console", "        console = Console(file=file)"),
    ("console.py", "Console", "from .console import Console"),
    ("segment.py", "Segment", "    def split_and_crop_lines(segments: Iterable[Segment]) -> Iterable[List[Segment]]:"),
    ("lib/index.js", "search", "module.exports = search"),
    ("lib/index.js", "search", "  const results = await search(query, opts)"),
    ("lib/x.js", "alloc", "      return Promise.resolve(Buffer.alloc(0))"),
    ("lib/x.js", "every", "  return list.every(function (x) { return x })"),
    ("errors.go", "New", "\treturn errors.New(\"boom\")"),
    ("src/a.rs", "memchr_iter", "    let it = memchr_iter(b'a', haystack);"),
    ("src/a.rs", "dirent", "    pub d: *mut dirent,"),
    ("x.h", "EVP_PKEY_CTX", "int EVP_PKEY_sign(EVP_PKEY_CTX *ctx, unsigned char *sig, size_t *siglen,"),
    ("x.c", "buf_grow", "    if (buf_grow(b, n) < 0)"),
    ("x.c", "buf_grow", "    return buf_grow(b, n);"),
    ("x.c", "buf_grow", "    buf_grow(b, n,"),  # a call continued on the next line
    ("bits/stl_algo.h", "__find_if", "      return std::__find_if(__first, __last,"),
    ("bits/shared_ptr.h", "make_shared", "\tmake_shared(_Args&&...);"),  # a friend declaration
    ("A.java", "evict", "        evict(key);"),
    ("app.rb", "parse_options", "    opts = parse_options(cmd)"),
    ("git-am.sh", "die", "\tdie \"$(gettext \"fatal: no patch\")\""),
    ("README.md", "Console", "class Console:"),  # a doc file defines nothing
    ("data.json", "search", '{"search": "function search (query) {"}'),
]


@pytest.mark.parametrize(("path", "symbol", "line"), DEFINES)
def test_definition_lines_are_recognised(path: str, symbol: str, line: str) -> None:
    assert rank(line, path, symbol) == STRONG


@pytest.mark.parametrize(("path", "symbol", "line"), USES)
def test_uses_are_not_definitions(path: str, symbol: str, line: str) -> None:
    assert rank(line, path, symbol) is None


@pytest.mark.parametrize(("path", "symbol", "line"), [
    ("rich/_loop.py", "T", 'T = TypeVar("T")'),  # module-level assignment
    ("jinja2/utils.py", "missing", "missing: t.Any = _MissingType()"),  # real
    ("lib/publish.js", "subject", "    const subject = {"),  # real (npm's libnpmpublish)
    ("x.h", "EVP_PKEY_new", "EVP_PKEY *EVP_PKEY_new(void);"),  # a prototype
    ("src/lib.rs", "Finder", "impl<'n> Finder<'n> {"),
    ("env.sh", "PAGER", "export PAGER=less"),
])
def test_looser_definitions_are_weak(path: str, symbol: str, line: str) -> None:
    assert rank(line, path, symbol) == WEAK


def test_family_by_extension_or_shape() -> None:
    assert family_of("./rich/console.py") == "python"
    assert family_of("node_modules/@npmcli/arborist/lib/node.js") == "js"
    assert family_of("src/unix/mod.rs") == "rust"
    assert family_of("completions/git") == ""  # no extension: judged by shape
    assert family_of(".bashrc") == ""
    assert family_of("docs/index.md") is None


def test_a_name_only_containing_the_symbol_is_not_its_definition() -> None:
    assert rank("class ConsoleOptions:", "console.py", "Console") is None
    assert rank("def search_all(q):", "a.py", "search") is None
    assert rank("pub fn memchr_iter2(n: u8) {", "a.rs", "memchr_iter") is None


def test_minified_lines_are_looked_at_only_near_their_start() -> None:
    line = "var a=1;" * 20000 + "function search(q){return q}"
    assert rank(line, "dist/bundle.min.js", "search") is None


def test_a_symbol_first_named_far_into_its_line_is_a_use() -> None:
    line = "    result = " + " + ".join(f"weight_{k} * value_{k}" for k in range(12)) + " + fetch_rows(q)"
    assert line.index("fetch_rows") > 160
    assert rank(line, "calc.py", "fetch_rows") is None
