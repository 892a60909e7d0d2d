/**
 * The benchmark's TS transformer: a `Model` with nothing overridden. Served with
 * `--predictor_host`, its default `predict` forwards each request to the predictor unchanged
 * (as kserve.Model does, test/compat/transformer_anchor.py --pass_through), so the
 * transformer-hop rows measure the hop and nothing else.
 *
 *   kserve-ts serve --model_name mlp --model_module benchmarks/transformer/pass-through.ts \
 *     --predictor_host 127.0.0.1:PORT --predictor_protocol v2
 */
import { Model } from 'kserve-ts';

export default class PassThrough extends Model {}
