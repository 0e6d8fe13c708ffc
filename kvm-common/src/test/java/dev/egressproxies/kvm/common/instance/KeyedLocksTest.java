package dev.egressproxies.kvm.common.instance;

import static dev.egressproxies.kvm.common.testing.Requests.catchProviderException;
import static org.assertj.core.api.Assertions.assertThat;

import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.kvm.common.Call;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Per-key locks whose waits end with the caller's deadline or interrupt, and that do not pile up. */
class KeyedLocksTest {
    private final KeyedLocks locks = new KeyedLocks();
    private final CountDownLatch held = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void clearInterrupt() {
        release.countDown();
        Thread.interrupted();
    }

    @Test
    void differentKeysDoNotWaitForEachOther() throws Exception {
        int sizeWhileBothHeld = locks.withLock("host-1/a", call(Deadline.after(Duration.ofSeconds(5))), "a", () ->
                CompletableFuture.supplyAsync(() -> locks.withLock("host-1/b", call(Deadline.after(Duration.ofSeconds(5))),
                        "b", locks::size)).join());

        assertThat(sizeWhileBothHeld).isEqualTo(2);
        assertThat(locks.size()).as("locks are forgotten once released").isZero();
    }

    @Test
    void aWaitEndsWithTheDeadline() throws Exception {
        CompletableFuture<Void> holder = holdInBackground("k");

        ProviderException error = catchProviderException(() ->
                locks.withLock("k", call(Deadline.after(Duration.ofMillis(100))), "the other holder", () -> null));

        assertThat(error.kind()).isEqualTo(ErrorKind.TRANSIENT);
        assertThat(error.detail()).contains("deadline exceeded while waiting for the other holder");
        release.countDown();
        holder.get(5, TimeUnit.SECONDS);
        assertThat(locks.size()).isZero();
    }

    @Test
    void aWaitEndsWhenTheThreadIsInterrupted() throws Exception {
        CompletableFuture<Void> holder = holdInBackground("k");
        CompletableFuture<Boolean> transientWithFlagKept = new CompletableFuture<>();
        Thread waiter = new Thread(() -> {
            ProviderException error = catchProviderException(() ->
                    locks.withLock("k", call(Deadline.none()), "k", () -> null));
            transientWithFlagKept.complete(error.kind() == ErrorKind.TRANSIENT && Thread.currentThread().isInterrupted());
        });
        waiter.start();
        Thread.sleep(100);

        waiter.interrupt();

        assertThat(transientWithFlagKept.get(5, TimeUnit.SECONDS)).isTrue();
        release.countDown();
        holder.get(5, TimeUnit.SECONDS);
    }

    private CompletableFuture<Void> holdInBackground(String key) throws InterruptedException {
        CompletableFuture<Void> holder = CompletableFuture.runAsync(() ->
                locks.withLock(key, call(Deadline.after(Duration.ofSeconds(10))), key, () -> {
                    held.countDown();
                    try {
                        release.await(10, TimeUnit.SECONDS);
                    } catch (InterruptedException interrupted) {
                        Thread.currentThread().interrupt();
                    }
                    return null;
                }));
        assertThat(held.await(5, TimeUnit.SECONDS)).isTrue();
        return holder;
    }

    private static Call call(Deadline deadline) {
        return new Call("e", Operation.CREATE, "host-1/p", deadline);
    }
}
