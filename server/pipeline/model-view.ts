import type { ModelView } from '../../protocols/tensor.js';
import type { ServedVersion } from '../repository/model-repository.js';

/** The neutral view of one served version (named signatures only where the model has them). */
export function viewOf(name: string, served: ServedVersion): ModelView {
  const { platform, inputs, outputs, version } = served;
  const signatures = served.instance.signatures;
  return { name, version, platform, inputs, outputs, signatures: signatures?.length ? signatures : undefined };
}
