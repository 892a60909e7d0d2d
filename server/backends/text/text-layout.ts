/** Where a text model's files are in its folder: what `detect` looks for, without loading the tokenizer library. */
import path from 'node:path';

/** Where sentence-transformers and Optimum put the ONNX graph, in the order looked for. */
export const ONNX_PATHS = ['model.onnx', path.join('onnx', 'model.onnx')] as const;

/** What marks a folder as a text model (beside an ONNX graph). */
export const TOKENIZER_FILE = 'tokenizer.json';
