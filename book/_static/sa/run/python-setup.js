// How Python starts, shared by the worker (runtime.js) and the book's build, which starts it once
// under Node.js and ships the memory it then has (booksite/runtime.py, snapshot): the arguments, the
// environment, the files Python sees, the cell driver and the first imports. The page's Python
// starts from that memory, so any change here is only seen after the runtime is built again.
import { File, Directory, PreopenDirectory } from "../../vendor/browser_wasi_shim-0.4.2/index.js";

export const ARGV0 = "/usr/local/bin/python.wasm";
export const ENV = ["TMPDIR=/tmp", "HOME=/home/reader", "PYTHONTZPATH=", "NO_COLOR=1", "PYTHONUNBUFFERED=1",
  "PYTHONDONTWRITEBYTECODE=1"];
export const FAIL = "\u0000sa-cell-failed\u0000";

// The cell driver, defined once: it runs a cell in __main__'s namespace (or, fresh, in a
// namespace of its own that nothing else sees) and, as Jupyter does, shows the value of a
// last bare expression.
export const DRIVER = `
def __sa_run(source, fresh=False):
    import ast, base64, builtins, sys, traceback
    src = base64.b64decode(source).decode("utf-8")
    g = {"__name__": "__main__", "__builtins__": builtins} if fresh else __import__("__main__").__dict__
    try:
        tree = ast.parse(src, "<cell>", "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, "<cell>", "exec"), g)
        if last is not None:
            value = eval(compile(last, "<cell>", "eval"), g)
            if value is not None:
                show = getattr(value, "_repr_markdown_", None)
                print(show() if callable(show) else repr(value))
    except BaseException as e:
        # The reader's own frames only: from the first of the cell's on. The driver's frame and,
        # for a syntax error, the parser's in the runtime's library (.../python315.zip/ast.py)
        # are not the reader's code; a SyntaxError names the cell's line itself.
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != "<cell>":
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb, limit=-40, file=sys.stderr)
        sys.stdout.write(${JSON.stringify(FAIL)})
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
`;

// Every page's first cell imports NumPy and selfattention; the real model's pages and the
// explorer import selfattention.minilm (and with it the BERT encoder and selfattention.fast). The
// snapshot has them imported already: about 0.7 MB more to download, gzipped, for about 0.15 s less
// before the explorer's first Compute (issue 40).
export const PRELOAD = "import numpy, selfattention, selfattention.minilm\n";

// The folders Python sees, with the standard library's zip (its bytes) where booksite/runtime.py's
// ZIP_IN_BROWSER says.
export function fileTree(zip) {
  return new PreopenDirectory("/", [
    ["usr", new Directory([["local", new Directory([
      ["lib", new Directory([["python315.zip", new File(zip, { readonly: true })]])],
      ["bin", new Directory([])],
    ])]])],
    ["tmp", new Directory([])],
    ["home", new Directory([["reader", new Directory([])]])],
  ]);
}

// One turn of the reactor: the code is written into Python's memory and run; 0 if it ran.
export function turn(instance, code) {
  const bytes = new TextEncoder().encode(code);
  const ptr = instance.exports.host_alloc(bytes.length);
  new Uint8Array(instance.exports.memory.buffer, ptr, bytes.length).set(bytes);
  return instance.exports.turn(ptr, bytes.length);
}
