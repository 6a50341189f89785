/**
 * Builds the tokenizer test corpus (over 1 MB) from this project's own code, documents and
 * example session, plus seeded synthetic text for the scripts and edge cases that real files
 * rarely hold: CJK, Cyrillic, emoji, base64, BOMs, odd whitespace and special-token strings.
 *
 *   npm run corpus -- [--docs DIR]... writes src/tokens/__fixtures__/corpus/*.txt
 */
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { transformSync } from 'esbuild';
import { seededRandom } from './_seeded-random.js';

const { values } = parseArgs({ options: { docs: { type: 'string', multiple: true, default: [] } } });
const out = 'src/tokens/__fixtures__/corpus';
mkdirSync(out, { recursive: true });

const { random, between, pick } = seededRandom(20_261_121);

function filesUnder(dir: string, ending: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === '__fixtures__' ? [] : filesUnder(path, ending);
      return path.endsWith(ending) ? [path] : [];
    });
}
const read = (path: string) => readFileSync(path, 'utf8');

function write(name: string, text: string) {
  writeFileSync(join(out, name), text);
  console.log(`${name}: ${Buffer.byteLength(text)} bytes`);
}

// Code: the project's TypeScript, and its compiled JavaScript minified.
const sources = [...filesUnder('src', '.ts'), ...filesUnder('scripts', '.ts')].map(read);
write('code.txt', sources.join('\n\n'));
write('minified-js.txt', sources.map((code) => transformSync(code, { loader: 'ts', minify: true }).code).join('\n'));

// Prose: the README and any design documents passed with --docs.
const docs = ['README.md', ...values.docs.flatMap((dir) => filesUnder(dir, '.md').concat(filesUnder(dir, '.txt')))];
write('prose.txt', docs.map(read).join('\n\n'));

// JSON tool output: the tool results of the bundled session, as a provider would see them.
const session = JSON.parse(read('examples/coding-agent-session.json')) as { messages: { role: string; content: unknown }[] };
write('json.txt', session.messages.filter((message) => message.role !== 'user').map((message) => JSON.stringify(message.content, null, between(0, 1) ? 2 : 0)).join('\n'));

// CJK: frequent Chinese characters, Japanese kana and kanji, Korean syllables, with punctuation.
const chinese = '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴切跑示热晚具';
const kana = 'あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワヲン';
const hangul = '가나다라마바사아자차카타파하거너더러머버서어저처커터퍼허고노도로모보소오조초코토포호구누두루무부수우주추쿠투푸후그느드르므브스으즈츠크트프흐기니디리미비시이지치키티피히한국어는정말아름답습니다';
const cjk: string[] = [];
while (cjk.join('').length < 60_000) {
  const script = pick([chinese, chinese, kana + chinese, hangul]);
  const sentence = Array.from({ length: between(6, 30) }, () => pick(Array.from(script))).join('');
  cjk.push(sentence + pick(['。', '，', '、', '！', '？', '. ', '：「引用」', '（注）']));
  if (random() < 0.1) cjk.push('\n');
  if (random() < 0.05) cjk.push(` ${between(1, 2026)}年${between(1, 12)}月 `);
}
write('cjk.txt', cjk.join(''));

// Cyrillic: Russian and Ukrainian words in sentences, with Latin and numbers mixed in.
const cyrillic = 'окно дом работа программа функция значение список файл ошибка проверка тест сервер клиент запрос ответ данные база поле таблица строка число время дата пользователь система модуль пакет версия сборка привет мир спасибо пожалуйста сегодня завтра вчера хорошо плохо быстро медленно який такий вона вони дякую будь ласка робота новий старий великий малий'.split(' ');
const ru: string[] = [];
while (ru.join(' ').length < 50_000) {
  const words = Array.from({ length: between(4, 14) }, () => pick(cyrillic));
  words[0] = (words[0] ?? '').charAt(0).toUpperCase() + (words[0] ?? '').slice(1);
  if (random() < 0.2) words.push(pick(['JSON', 'HTTP/2', 'npm', `v${between(1, 9)}.${between(0, 20)}`, String(between(0, 99_999))]));
  ru.push(`${words.join(' ')}${pick(['.', '!', '?', ':', ';', '…'])}`);
  if (random() < 0.1) ru.push('\n');
}
write('cyrillic.txt', ru.join(' '));

// Emoji: single, skin tones, ZWJ families, flags, keycaps, mixed with text.
const emoji = ['😀', '🎉', '👍', '👍🏽', '👩‍💻', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇺🇦', '🇯🇵', '1️⃣', '❤️', '🔥', '✅', '❌', '🚀', '🤖', '🧪', '📦', '⚠️', '🙏🏿'];
const emojiText: string[] = [];
while (emojiText.join('').length < 30_000) {
  emojiText.push(`${pick(['ok', 'done', 'shipped', 'tests pass', 'build failed', 'thanks', 'LGTM'])} ${Array.from({ length: between(1, 5) }, () => pick(emoji)).join(pick(['', ' ']))}${pick(['\n', ' ', '. '])}`);
}
write('emoji.txt', emojiText.join(''));

// Base64: random bytes as base64 blobs and data URLs, wrapped and unwrapped.
const base64: string[] = [];
while (base64.join('').length < 80_000) {
  const bytes = Buffer.from(Array.from({ length: between(30, 3000) }, () => between(0, 255)));
  const blob = bytes.toString('base64');
  base64.push(random() < 0.3 ? `data:image/png;base64,${blob}` : random() < 0.5 ? (blob.match(/.{1,76}/g) ?? []).join('\n') : blob);
  base64.push('\n');
}
write('base64.txt', base64.join(''));

// Edge cases: BOMs, odd whitespace (NEL, NBSP, ideographic space), and special-token strings.
const specials = ['<|endoftext|>', '<|fim_prefix|>', '<|fim_middle|>', '<|fim_suffix|>', '<|endofprompt|>', '<|im_start|>', '<|im_end|>', '<|start|>', '<|message|>'];
const edges: string[] = [];
const snippets = sources.join('\n').split('\n');
while (edges.join('').length < 40_000) {
  const line = pick(snippets);
  const kind = between(0, 5);
  if (kind === 0) edges.push(`\uFEFF${line}`);
  else if (kind === 1) edges.push(line.replace(/ /g, () => pick([' ', '\u00A0', '\u0085', '\u3000', '\t', '\uFEFF'])));
  else if (kind === 2) edges.push(`${line} ${pick(specials)} ${pick(specials)}${line}`);
  else if (kind === 3) edges.push(`${pick(['\r\n', '\n\n\n', '   \n', '\u2028', '\u0085'])}${line}`);
  else if (kind === 4) edges.push(pick(['=', '-', '#', '*', ' ']).repeat(between(10, 300)));
  else edges.push(line);
  edges.push(pick(['\n', '\r\n', ' ', '']));
}
write('edge-cases.txt', edges.join(''));
