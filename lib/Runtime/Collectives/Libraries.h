//===- Libraries.h - The collective libraries built into the runtime ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each library registers itself under its name; a device backend calls the
// ones that work on its memory (lib/Runtime/Backends). Private to the
// runtime.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_COLLECTIVES_LIBRARIES_H
#define OFRT_LIB_RUNTIME_COLLECTIVES_LIBRARIES_H

namespace ofrt {

class CollectivesRegistry;

/// "inproc": shared memory between ranks that are threads of one process.
void registerInProcessCollectives(CollectivesRegistry &registry);
/// "gloo": TCP between processes that share a store.
void registerGlooCollectives(CollectivesRegistry &registry);
/// "mpi": MPI, under mpirun (only when the runtime is built with MPI).
void registerMpiCollectives(CollectivesRegistry &registry);

} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_COLLECTIVES_LIBRARIES_H
