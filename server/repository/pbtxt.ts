/**
 * A small protobuf text-format reader, enough for Triton's `config.pbtxt`: scalar fields
 * (`name: "x"`, `max_batch_size: 8`, enums), messages (`field { ... }`), repeated fields
 * written either by repetition or as lists (`dims: [ -1, 4 ]`, `input [ {...}, {...} ]`),
 * `#` comments. Every field maps to an array of values, since any field may repeat.
 */
export type PbValue = string | number | boolean | PbMessage;
export type PbMessage = Map<string, PbValue[]>;

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
      let s = '';
      while (this.peek() === c) {
        const end = this.text.indexOf(c, this.pos + 1);
        if (end < 0) this.fail('unterminated string');
        s += this.text.slice(this.pos + 1, end);
        this.pos = end + 1;
      }
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
