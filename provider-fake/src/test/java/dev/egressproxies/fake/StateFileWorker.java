package dev.egressproxies.fake;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.Placement;
import dev.egressproxies.conformance.TestProviderContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A separate process for {@link MultiProcessStateFileTest}: builds a file-backed provider, says it
 * is ready, waits for the go signal so that all workers start together, then creates its instances.
 *
 * <p>Arguments: state file, worker name, number of instances, ready directory, provider entry.
 */
public final class StateFileWorker {
    private StateFileWorker() {
    }

    /** Runs one worker; exits non-zero, with the cause on stderr, when anything fails. */
    public static void main(String[] arguments) throws Exception {
        Path stateFile = Path.of(arguments[0]);
        String worker = arguments[1];
        int count = Integer.parseInt(arguments[2]);
        Path signals = Path.of(arguments[3]);
        String entry = arguments[4];

        FakeProvider provider = new FakeProviderFactory().create(entry,
                FakeConfig.defaults().withStateFile(stateFile), new TestProviderContext(signals));
        Files.createFile(signals.resolve("ready-" + worker));
        long giveUpAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(signals.resolve("go"))) {
            if (System.nanoTime() - giveUpAt > 0) {
                throw new IllegalStateException("no go signal within 60 s");
            }
            TimeUnit.MILLISECONDS.sleep(1);
        }
        for (int index = 0; index < count; index++) {
            String name = worker + "-" + index;
            provider.create(new CreateRequest(name, "uid-" + name, new Placement("zone-a", "small", "debian-12"), ""),
                    Deadline.after(Duration.ofSeconds(60)));
        }
    }
}
