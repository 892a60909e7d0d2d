/**
 * gRPC server reflection (grpcurl, grpcui, Postman) for the project's services.
 *
 * protobufjs names the entry message of a `map<>` field after the field ("Parameters")
 * where protoc, and every runtime that checks, expects "<Field>Entry" ("ParametersEntry");
 * Go's protobuf, and so grpcurl, rejects the whole file otherwise ("incorrect implicit map
 * entry name"). The file descriptors handed to the reflection service are rewritten with
 * protoc's names first; the wire format does not depend on them.
 */
import type { Server } from '@grpc/grpc-js';
import type { PackageDefinition } from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import type { IDescriptorProto, IFileDescriptorProto } from 'protobufjs/ext/descriptor/index.js';

const LABEL_REPEATED = 3;
const TYPE_MESSAGE = 11;

/** protoc's map entry name: the field name in UpperCamelCase plus "Entry". */
export function mapEntryName(field: string): string {
  return `${field
    .split('_')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('')}Entry`;
}

function fixMessage(msg: IDescriptorProto): void {
  for (const nested of msg.nestedType ?? []) {
    if (nested.options?.mapEntry !== true) {
      fixMessage(nested);
      continue;
    }
    const field = msg.field?.find((f) => f.label === LABEL_REPEATED && f.type === TYPE_MESSAGE && f.typeName === nested.name);
    if (field?.name === undefined) continue;
    nested.name = mapEntryName(field.name);
    field.typeName = nested.name;
  }
}

/** The file descriptor bytes with protoc's map entry names. */
export function withProtocMapEntries(file: Uint8Array): Buffer {
  const decoded = descriptor.FileDescriptorProto.decode(file) as unknown as IFileDescriptorProto;
  for (const msg of decoded.messageType ?? []) fixMessage(msg);
  return Buffer.from(descriptor.FileDescriptorProto.encode(decoded).finish());
}

export function addReflection(server: Server, definition: PackageDefinition): void {
  const fixed = new Map<Buffer, Buffer>();
  const fix = (bin: Buffer): Buffer => {
    let out = fixed.get(bin);
    if (out === undefined) {
      out = withProtocMapEntries(bin);
      fixed.set(bin, out);
    }
    return out;
  };
  const patched: PackageDefinition = {};
  // Message and enum definitions carry the file descriptors; services do not.
  for (const [name, def] of Object.entries(definition)) {
    const files = (def as { fileDescriptorProtos?: unknown }).fileDescriptorProtos;
    patched[name] = Array.isArray(files) ? ({ ...def, fileDescriptorProtos: (files as Buffer[]).map(fix) } as typeof def) : def;
  }
  new ReflectionService(patched).addToServer(server);
}
