/**
 * A custom model in front of an ONNX session: clients send iris measurements in
 * millimetres, the model converts them to the centimetres the ONNX classifier
 * (examples/models/iris) was trained on, runs it, and answers with species names next to
 * the probabilities. Served with:
 *
 *   kserve-ts serve --model_name iris-species --model_module ./iris-classifier.js --model_dir examples/models/iris
 */
import path from 'node:path';
import * as ort from 'onnxruntime-node';
import {
  InferInput,
  InferOutput,
  InferRequest,
  InferResponse,
  InvalidInput,
  Model,
  type ModelFactoryOptions,
  type RequestHeaders,
  type ResponseHeaders,
  type TensorSpec,
} from 'kserve-ts';

const SPECIES = ['setosa', 'versicolor', 'virginica'];

export default class IrisClassifier extends Model {
  readonly #modelDir: string;
  #session: ort.InferenceSession | undefined;

  constructor(name: string, options: ModelFactoryOptions) {
    super(name);
    this.#modelDir = options.modelDir ?? 'examples/models/iris';
  }

  override async load(): Promise<boolean> {
    this.#session = await ort.InferenceSession.create(path.join(this.#modelDir, 'model.onnx'));
    this.ready = true;
    return this.ready;
  }

  override getInputTypes(): TensorSpec[] {
    return [{ name: 'measurements_mm', datatype: 'FP32', shape: [-1, 4] }];
  }

  override getOutputTypes(): TensorSpec[] {
    return [
      { name: 'species', datatype: 'BYTES', shape: [-1] },
      { name: 'probabilities', datatype: 'FP32', shape: [-1, 3] },
    ];
  }

  override preprocess(request: InferRequest, _headers: RequestHeaders): InferRequest {
    const input = request.getInput('measurements_mm');
    if (input === undefined) throw new InvalidInput('expected input measurements_mm');
    const mm = input.asNumbers();
    if (mm.some((v) => !(v >= 0))) throw new InvalidInput('measurements must be non-negative millimetres');
    const cm = Float32Array.from(mm, (v) => v / 10);
    return new InferRequest(this.name, [new InferInput('input', input.shape, 'FP32', cm)], { id: request.id });
  }

  override async predict(request: InferRequest, _headers: RequestHeaders, _responseHeaders: ResponseHeaders): Promise<InferResponse> {
    const session = this.#session;
    if (session === undefined) throw new Error('not loaded');
    const input = request.inputs[0] as InferInput;
    const feeds = { input: new ort.Tensor('float32', input.data as Float32Array, [...input.shape]) };
    const result = await session.run(feeds, ['probabilities']);
    const probabilities = result['probabilities'] as ort.Tensor;
    return new InferResponse(this.name, [new InferOutput('probabilities', probabilities.dims, 'FP32', probabilities.data)], { id: request.id });
  }

  override postprocess(response: InferResponse, _headers: RequestHeaders, responseHeaders: ResponseHeaders): InferResponse {
    const probabilities = response.getOutput('probabilities') as InferOutput;
    const rows = probabilities.shape[0] ?? 0;
    const p = probabilities.asNumbers();
    const species: string[] = [];
    for (let r = 0; r < rows; r++) {
      const row = p.slice(r * 3, r * 3 + 3);
      species.push(SPECIES[row.indexOf(Math.max(...row))] ?? 'unknown');
    }
    responseHeaders['x-iris-rows'] = String(rows);
    return new InferResponse(this.name, [new InferOutput('species', [rows], 'BYTES', species), probabilities], { id: response.id });
  }
}
