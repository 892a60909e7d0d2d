/**
 * The Content-Type Go's net/http gives an answer KServe's router writes without one (a
 * step's answer that is not JSON): http.DetectContentType's rules for what such answers
 * hold (HTML and XML error pages, text, binary), not its image and archive signatures.
 */
const HTML = ['<!DOCTYPE HTML', '<HTML', '<HEAD', '<SCRIPT', '<IFRAME', '<H1', '<DIV', '<FONT', '<TABLE', '<A', '<STYLE', '<TITLE', '<B', '<BODY', '<BR', '<P', '<!--'];

function isWs(b: number): boolean {
  return b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20;
}

function isBinary(b: number): boolean {
  return b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);
}

export function detectContentType(body: Uint8Array): string {
  const data = body.subarray(0, 512);
  let i = 0;
  while (i < data.length && isWs(data[i]!)) i++;
  const rest = Buffer.from(data.subarray(i)).toString('latin1');
  for (const sig of HTML) {
    if (rest.length > sig.length && rest.slice(0, sig.length).toUpperCase() === sig) {
      const next = rest.charCodeAt(sig.length);
      if (next === 0x20 || next === 0x3e) return 'text/html; charset=utf-8';
    }
  }
  if (rest.startsWith('<?xml')) return 'text/xml; charset=utf-8';
  if (rest.startsWith('%PDF-')) return 'application/pdf';
  if (data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) return 'text/plain; charset=utf-8';
  if (data.some(isBinary)) return 'application/octet-stream';
  return 'text/plain; charset=utf-8';
}
