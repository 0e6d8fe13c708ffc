package dev.egressproxies.fake;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.egressproxies.api.CreateRequest;
import dev.egressproxies.api.Deadline;
import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.Placement;
import dev.egressproxies.api.ProviderException;
import dev.egressproxies.conformance.TestProviderContext;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** What the fake provider's tests share: how to build a provider, a request and a deadline, and check errors. */
final class TestProviders {
    /** The entry name every test provider is built under. */
    static final String ENTRY = "fake-test";
    /** When every {@link ManualClock} starts. */
    static final Instant START = Instant.parse("2030-01-01T00:00:00Z");

    private TestProviders() {
    }

    /** A provider built by the factory from {@code config}, on {@code clock}. */
    static FakeProvider build(FakeConfig config, ManualClock clock, Path stateDirectory) {
        return build(ENTRY, config, clock, stateDirectory);
    }

    /** A provider of the entry named {@code entry} built by the factory from {@code config}, on {@code clock}. */
    static FakeProvider build(String entry, FakeConfig config, ManualClock clock, Path stateDirectory) {
        return new FakeProviderFactory().create(entry, config, new TestProviderContext(stateDirectory, clock));
    }

    /** An in-memory provider with the default configuration on a clock that starts at {@link #START}. */
    static FakeProvider inMemory() {
        return build(FakeConfig.defaults(), new ManualClock(START), Path.of("unused-state-directory"));
    }

    /** A valid request for {@code name} in zone-a, as the default configuration accepts it. */
    static CreateRequest request(String name) {
        return request(name, new Placement("zone-a", "small", "debian-12"));
    }

    /** A request for {@code name} with {@code placement}. */
    static CreateRequest request(String name, Placement placement) {
        return new CreateRequest(name, "uid-" + name, placement, "#cloud-config\n");
    }

    /** A deadline long enough for any call that does not hang. */
    static Deadline deadline() {
        return Deadline.after(Duration.ofSeconds(10));
    }

    /**
     * Runs {@code call}, requires it to throw a ProviderException carrying {@code kind},
     * {@code operation}, the test entry and {@code instanceId}, and returns it.
     */
    static ProviderException providerError(ThrowingCallable call, ErrorKind kind, Operation operation,
                                           String instanceId) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(ProviderException.class);
        ProviderException error = (ProviderException) thrown;
        assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(kind);
        assertThat(error.operation()).as("operation of: %s", error.getMessage()).isEqualTo(operation);
        assertThat(error.entry()).as("entry of: %s", error.getMessage()).isEqualTo(ENTRY);
        assertThat(error.instanceId()).as("instance of: %s", error.getMessage()).isEqualTo(instanceId);
        return error;
    }
}
