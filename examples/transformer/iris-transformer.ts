/**
 * A transformer in front of the ONNX iris predictor (examples/models/iris), as a KServe
 * transformer is deployed with spec.transformer + spec.predictor: clients send flower
 * measurements in millimetres ([N, 4] `measurements_mm`: V2 inputs, or V1 instances);
 * `preprocess` turns them into the centimetre [N, 4] `input`
 * the classifier was trained on; the default `predict` forwards that to the predictor
 * (--predictor_host, over --predictor_protocol v1, v2 or grpc-v2) under this model's name;
 * `postprocess` names the species.
 *
 *   kserve-ts serve --model_name iris --model_module examples/transformer/iris-transformer.ts \
 *     --predictor_host 127.0.0.1:8085 --predictor_protocol v2
 *
 * (serve.sh starts the predictor and this transformer together.)
 */
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

export default class IrisTransformer extends Model {
  constructor(name: string, options: ModelFactoryOptions) {
    // options.predictor carries the --predictor_* flags: without it there is nothing to forward to.
    if (options.predictor === undefined) throw new Error('iris-transformer needs --predictor_host');
    super(name, options);
  }

  override getInputTypes(): TensorSpec[] {
    return [{ name: 'measurements_mm', datatype: 'FP32', shape: [-1, 4] }];
  }

  /** A V1 predictor answers labels only, so probabilities come back over V2 hops only. */
  override getOutputTypes(): TensorSpec[] {
    const species: TensorSpec = { name: 'species', datatype: 'BYTES', shape: [-1] };
    if (this.predictorConfig?.protocol === 'v1') return [species];
    return [species, { name: 'probabilities', datatype: 'FP32', shape: [-1, 3] }];
  }

  override preprocess(request: InferRequest, _headers: RequestHeaders): InferRequest {
    const mm = measurements(request);
    if (mm.values.some((v) => !(v >= 0 && v < 10_000))) throw new InvalidInput('measurements must be millimetres between 0 and 10000');
    const cm = Float32Array.from(mm.values, (v) => v / 10);
    // Only the classifier's probabilities are wanted: species are named here.
    return new InferRequest(this.name, [new InferInput('input', [mm.rows, 4], 'FP32', cm)], {
      id: request.id,
      requestOutputs: this.predictorConfig?.protocol === 'v1' ? [] : [{ name: 'probabilities' }],
    });
  }

  override postprocess(response: InferResponse, _headers: RequestHeaders, responseHeaders: ResponseHeaders): InferResponse {
    const probabilities = response.getOutput('probabilities');
    if (probabilities === undefined) {
      // A V1 predictor answers its first output only: the label.
      const labels = (response.outputs[0] as InferOutput).asNumbers();
      responseHeaders['x-iris-rows'] = String(labels.length);
      return new InferResponse(
        this.name,
        [
          new InferOutput(
            'species',
            [labels.length],
            'BYTES',
            labels.map((l) => SPECIES[l] ?? 'unknown'),
          ),
        ],
        { id: response.id },
      );
    }
    const rows = probabilities.shape[0] ?? 0;
    const p = probabilities.asNumbers();
    const species: string[] = [];
    for (let r = 0; r < rows; r++) {
      const row = p.slice(r * 3, r * 3 + 3);
      species.push(SPECIES[row.indexOf(Math.max(...row))] ?? 'unknown');
    }
    responseHeaders['x-iris-rows'] = String(rows);
    return new InferResponse(
      this.name,
      [new InferOutput('species', [rows], 'BYTES', species), new InferOutput('probabilities', probabilities.shape, 'FP32', Float32Array.from(p))],
      {
        id: response.id,
      },
    );
  }
}

/** [N, 4] millimetres from the one input (`measurements_mm`; V1 instances decode into it). */
function measurements(request: InferRequest): { rows: number; values: number[] } {
  const tensor = request.getInput('measurements_mm') ?? (request.inputs.length === 1 ? request.inputs[0] : undefined);
  if (tensor === undefined) throw new InvalidInput('expected input measurements_mm');
  if (tensor.shape.length !== 2 || tensor.shape[1] !== 4) throw new InvalidInput(`expected rows of 4 measurements, got shape [${tensor.shape.join(', ')}]`);
  return { rows: tensor.shape[0] ?? 0, values: tensor.asNumbers() };
}
