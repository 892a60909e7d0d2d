/**
 * Loads a `--model_module`: an ES module (or CommonJS) whose default export, or `model`
 * export, is a Model subclass (constructed as `new C(name, options)`) or a factory
 * (`(options) => Model | Promise<Model>`). A class is told from a factory by its prototype's
 * `predict`, not by `instanceof`: the module may import its own copy of this package.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Model, ModelClass, ModelFactory, ModelFactoryOptions } from './model.js';

function isModelClass(value: unknown): value is ModelClass {
  return typeof value === 'function' && typeof (value.prototype as { predict?: unknown } | undefined)?.predict === 'function';
}

function isModel(value: unknown): value is Model {
  return typeof value === 'object' && value !== null && typeof (value as { predict?: unknown }).predict === 'function' && typeof (value as { name?: unknown }).name === 'string';
}

/** Imports the module at `file` (relative to the working directory) and makes its model. */
export async function modelFromModule(file: string, options: ModelFactoryOptions): Promise<Model> {
  const mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
  const exported = mod['default'] ?? mod['model'];
  let model: unknown;
  if (isModelClass(exported)) model = new exported(options.name, options);
  else if (typeof exported === 'function') model = await (exported as ModelFactory)(options);
  else throw new Error(`${file} exports no Model subclass or factory (default export or 'model')`);
  if (!isModel(model)) throw new Error(`the factory in ${file} did not return a Model`);
  if (model.name !== options.name) throw new Error(`the model of ${file} is named '${model.name}', not --model_name '${options.name}'`);
  return model;
}
