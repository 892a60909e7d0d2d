/**
 * Backends own their options (Triton's rule): a real server with the onnx and tensorflow
 * backends, where each model's config.pbtxt parameters are read by the backend that serves
 * it, a parameter meant for another backend refuses the load naming it, and a server flag of
 * one backend given while another backend's model loads is logged once as not applying.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs } from '../server/config.js';
import { type ModelServer, createServer, defaultBackends } from '../server/server.js';
import { TF_FIXTURES } from '../server/backends/tensorflow/tf-fixtures.test-helper.js';
import { fixture } from './helpers/server.js';
import { textEncoderFixtures } from './helpers/text-encoders.js';

const param = (key: string, value: string) => `parameters { key: "${key}" value: { string_value: "${value}" } }\n`;

describe('backend-owned options', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'kserve-ts-backend-options-'));
  const lines: Array<Record<string, unknown>> = [];
  let server: ModelServer;

  const onnxModel = (name: string, config?: string) => {
    mkdirSync(path.join(dir, name));
    cpSync(fixture('identity_fp32'), path.join(dir, name, 'model.onnx'));
    if (config !== undefined) writeFileSync(path.join(dir, name, 'config.pbtxt'), config);
  };
  const tfjsModel = (name: string, config?: string) => {
    cpSync(path.join(TF_FIXTURES, 'dense_classifier_tfjs'), path.join(dir, name), { recursive: true });
    if (config !== undefined) writeFileSync(path.join(dir, name, 'config.pbtxt'), config);
  };

  beforeAll(async () => {
    // A text model's graph runs in an onnx instance: the onnx flags and parameters are its own.
    cpSync(path.join((await textEncoderFixtures()).dir, 'encoder-cls'), path.join(dir, 'text_ok'), { recursive: true });
    writeFileSync(path.join(dir, 'text_ok', 'config.pbtxt'), param('intra_op_thread_count', '1'));
    onnxModel('onnx_ok', param('intra_op_thread_count', '1') + param('execution_providers', 'cpu'));
    onnxModel('onnx_foreign', param('saved_model_tags', 'serve'));
    onnxModel('onnx_bad_value', param('inter_op_thread_count', 'many'));
    tfjsModel('tf_ok', param('saved_model_tags', 'serve'));
    tfjsModel('tf_ok_too');
    tfjsModel('tf_foreign', param('execution_providers', 'cuda,cpu'));
    const backends = defaultBackends();
    const { config } = parseServeArgs(
      ['--model_repository', dir, '--enable_grpc', 'false', '--intra_op_threads', '1', '--inter_op_threads', '2', '--inline-max-us=50'],
      {},
      backends.flags(),
    );
    const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(JSON.parse(c.toString()) as Record<string, unknown>), cb()) }));
    server = await createServer(config, logger, { backends, defaultMetrics: false });
    await server.repository.loadStartupModels();
  }, 600_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('loads models whose parameters their own backend reads', () => {
    expect(server.repository.state('onnx_ok')?.state).toBe('READY');
    expect(server.repository.state('tf_ok')?.state).toBe('READY');
    expect(server.repository.state('tf_ok_too')?.state).toBe('READY');
    expect(server.repository.state('text_ok')?.state).toBe('READY');
  });

  it.each([
    [
      'onnx_foreign',
      "config.pbtxt: parameter 'saved_model_tags' is not supported by the onnx backend (it reads execution_providers, intra_op_thread_count, inter_op_thread_count, device_id, gpu_mem_limit, arena_extend_strategy, cudnn_conv_algo_search, do_copy_in_default_stream, use_tf32)",
    ],
    ['tf_foreign', "config.pbtxt: parameter 'execution_providers' is not supported by the tensorflow backend (it reads saved_model_tags)"],
    ['onnx_bad_value', 'config.pbtxt: parameter inter_op_thread_count must be a non-negative integer'],
  ])('refuses %s at load, naming the parameter', (name, reason) => {
    const st = server.repository.state(name);
    expect(st?.state).toBe('FAILED');
    expect(st?.reason).toContain(reason);
  });

  it('logs each onnx flag given once as not applying to tensorflow models, however many load', () => {
    const notices = lines.filter((l) => l['backend'] === 'tensorflow' && typeof l['flag'] === 'string').map((l) => l['msg']);
    expect(notices.sort()).toEqual([
      '--inline_max_us applies to onnx models only; it does not apply to tensorflow models',
      '--inter_op_threads applies to onnx models only; it does not apply to tensorflow models',
    ]);
  });

  it('never notices a flag nobody gave, nor one for the backend that owns it', () => {
    expect(lines.filter((l) => l['flag'] === '--execution_providers')).toEqual([]);
    expect(lines.filter((l) => l['backend'] === 'onnx' && typeof l['flag'] === 'string')).toEqual([]);
    expect(lines.filter((l) => l['backend'] === 'text' && typeof l['flag'] === 'string')).toEqual([]);
  });
});
