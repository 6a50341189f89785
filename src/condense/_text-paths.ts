/** File extensions that make a bare name a file name. */
const EXTENSIONS = 'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|py|rs|go|java|rb|yml|yaml|toml|sql|sh|css|html|txt|lock|cfg|ini|xml|c|h|cpp|hpp|cs|kt|swift|php';
/** A path with a slash in it, or a file name with a known extension. */
const PATH = new RegExp(`(?<=^|[\\s'"\`(=,\\[])((?:~|\\.{1,2})?/?(?:[\\w@.+-]+/)+[\\w@.+-]*[\\w+-]|[\\w@+-][\\w@.+-]*\\.(?:${EXTENSIONS}))(?=$|[\\s'"\`),:;\\]?!]|\\.(?:\\s|$))`, 'g');
/** A URL with a scheme, up to the first space or quote. */
const URL_LIKE = /\w+:\/\/\S+/g;

/** The file paths a text names, each as written (URLs aside). */
export function pathsIn(text: string): string[] {
  return [...text.replace(URL_LIKE, ' ').matchAll(PATH)].map((match) => match[1] ?? '').filter((path) => path !== '');
}
