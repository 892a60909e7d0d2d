/**
 * A small protobuf text-format reader, enough for Triton's `config.pbtxt`: scalar fields
 * (`name: "x"`, `max_batch_size: 8`, enums), messages (`field { ... }`), repeated fields
 * written either by repetition or as lists (`dims: [ -1, 4 ]`, `input [ {...}, {...} ]`),
 * `#` comments. Every field maps to an array of values, since any field may repeat.
 */
export type PbValue = string | number | boolean | PbMessage;
export type PbMessage = Map<string, PbValue[]>;

const ESCAPES = new Map([
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['a', '\x07'],
  ['b', '\b'],
  ['f', '\f'],
  ['v', '\v'],
]);

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(what: string): never {
    const line = this.text.slice(0, this.pos).split('\n').length;
    throw new Error(`config.pbtxt line ${line}: ${what}`);
  }

  skip(): void {
    for (;;) {
      const c = this.text[this.pos];
      if (c === '#') {
        while (this.pos < this.text.length && this.text[this.pos] !== '\n') this.pos++;
      } else if (c !== undefined && /[\s,;]/.test(c)) this.pos++;
      else return;
    }
  }

  peek(): string | undefined {
    this.skip();
    return this.text[this.pos];
  }

  expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected '${ch}'`);
    this.pos++;
  }

  ident(): string {
    this.skip();
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.pos));
    if (m === null) this.fail('expected a field name');
    this.pos += m[0].length;
    return m[0];
  }

  scalar(): PbValue {
    const c = this.peek();
    if (c === '"' || c === "'") {
      // Adjacent strings concatenate, as in protobuf text format.
      let s = '';
      while (this.peek() === c) s += this.quoted(c);
      return s;
    }
    const m = /^[-+]?[A-Za-z0-9_.]+/.exec(this.text.slice(this.pos));
    if (m === null) this.fail('expected a value');
    this.pos += m[0].length;
    const tok = m[0];
    if (tok === 'true' || tok === 'false') return tok === 'true';
    const n = Number(tok);
    return Number.isNaN(n) ? tok : n;
  }

  /** One quoted string at `pos`, with protobuf's C-style escapes (`\"`, `\n`, `\101`, `\x41`). */
  quoted(q: string): string {
    let s = '';
    let i = this.pos + 1;
    for (;;) {
      const ch = this.text[i];
      if (ch === undefined) this.fail('unterminated string');
      if (ch === q) break;
      if (ch !== '\\') {
        s += ch;
        i++;
        continue;
      }
      const m = /^(?:[0-7]{1,3}|x[0-9A-Fa-f]{1,2}|[\s\S])/.exec(this.text.slice(i + 1));
      if (m === null) this.fail('unterminated string');
      const e = m[0];
      if (/^[0-7]/.test(e)) s += String.fromCharCode(parseInt(e, 8));
      else if (e.length > 1) s += String.fromCharCode(parseInt(e.slice(1), 16));
      else s += ESCAPES.get(e) ?? e;
      i += 1 + e.length;
    }
    this.pos = i + 1;
    return s;
  }

  message(close: string | undefined): PbMessage {
    const msg: PbMessage = new Map();
    for (;;) {
      const c = this.peek();
      if (c === undefined) {
        if (close !== undefined) this.fail(`missing '${close}'`);
        return msg;
      }
      if (c === close) {
        this.pos++;
        return msg;
      }
      const name = this.ident();
      let values: PbValue[];
      if (this.peek() === ':') this.pos++;
      const next = this.peek();
      if (next === '{' || next === '<') {
        this.pos++;
        values = [this.message(next === '{' ? '}' : '>')];
      } else if (next === '[') {
        this.pos++;
        values = [];
        while (this.peek() !== ']') {
          if (this.peek() === undefined) this.fail("missing ']'");
          const open = this.peek();
          if (open === '{' || open === '<') {
            this.pos++;
            values.push(this.message(open === '{' ? '}' : '>'));
          } else values.push(this.scalar());
        }
        this.pos++;
      } else values = [this.scalar()];
      msg.set(name, [...(msg.get(name) ?? []), ...values]);
    }
  }
}

export function parsePbtxt(text: string): PbMessage {
  return new Reader(text).message(undefined);
}
