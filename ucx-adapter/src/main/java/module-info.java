/**
 * The {@code ucx} provider. It exports nothing: applications reach it through {@code dev.fiucx}
 * ({@code Fabric.openDomain("ucx", ...)}), which finds it as a service. Its FFM downcalls make it a
 * module that needs native access ({@code --enable-native-access=dev.fiucx,dev.fiucx.ucx,jucx}:
 * core's emulation reads result buffers by address, jucx loads its JNI library itself).
 */
// "requires-automatic": jucx 1.14 has no module descriptor and no Automatic-Module-Name; its name
// is derived from the jar's file name, which Maven always makes jucx-<version>.jar
@SuppressWarnings("requires-automatic")
module dev.fiucx.ucx {
  requires dev.fiucx;
  requires jucx;

  provides dev.fiucx.spi.AtomicProvider with
      dev.fiucx.ucx.UcxProvider;
}
