package dev.egressproxies.integration.kvm;

import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The crash point of a child JVM ({@link Kvm2CreateMain}): right before the one libvirt adapter
 * call it names (a method on a named domain or volume), it prints {@code CRASHPOINT LABEL} on
 * standard output and blocks that call's thread for good. The JVM then waits to be killed, with the
 * host in exactly the state the calls before left it. Every other call passes through.
 */
final class StopBeforeCall implements InterceptedLibvirtHost.Interceptor {
    /** What the announcing line starts with; the point's label follows. */
    static final String ANNOUNCEMENT = "CRASHPOINT ";

    private final String method;
    private final String subject;
    private final String label;

    /**
     * @param method  the adapter method to stop before, such as {@code createVolume}
     * @param subject the name of the domain or volume the call must act on
     * @param label   the name the announcement gives the point
     */
    StopBeforeCall(String method, String subject, String label) {
        this.method = method;
        this.subject = subject;
        this.label = label;
    }

    @Override
    public <T> T around(String method, String subject, Supplier<T> call) {
        if (this.method.equals(method) && this.subject.equals(subject)) {
            System.out.println(ANNOUNCEMENT + label);
            System.out.flush();
            blockForGood();
        }
        return call.get();
    }

    /** Only the kill ends this: a deadline's interrupt must not let the call go on. */
    @SuppressWarnings("InfiniteLoopStatement")
    private static void blockForGood() {
        CountDownLatch never = new CountDownLatch(1);
        while (true) {
            try {
                never.await();
            } catch (InterruptedException ignored) {
                // Keep waiting for the kill.
            }
        }
    }
}
