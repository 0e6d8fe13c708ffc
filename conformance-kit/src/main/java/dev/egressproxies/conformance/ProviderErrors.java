package dev.egressproxies.conformance;

import static org.assertj.core.api.Assertions.fail;

import dev.egressproxies.api.ErrorKind;
import dev.egressproxies.api.Operation;
import dev.egressproxies.api.ProviderException;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.function.Executable;

/**
 * Assertions about the errors a provider throws: the kind, and the context every error must
 * carry (operation, entry and instance ID) so that a log line alone says where it failed.
 */
final class ProviderErrors {
    private ProviderErrors() {
    }

    /**
     * Runs the call and returns the {@link ProviderException} it threw.
     *
     * @throws AssertionError when it returned normally or threw anything else
     */
    static ProviderException thrownBy(String description, Executable call) {
        try {
            call.execute();
        } catch (ProviderException e) {
            return e;
        } catch (Throwable other) {
            throw new AssertionError(description + " threw " + other + " instead of a ProviderException;"
                    + " the contract allows no other exception type", other);
        }
        return fail("%s returned normally, but should have failed", description);
    }

    /**
     * Asserts the error's kind and context for a call about a known instance ID (get, delete).
     */
    static void assertError(ProviderException error, ErrorKind kind, Operation operation, String entry,
                            String instanceId) {
        SoftAssertions softly = context(error, kind, operation, entry);
        softly.assertThat(error.instanceId()).as("instance ID of: %s", error.getMessage()).isEqualTo(instanceId);
        softly.assertAll();
    }

    /**
     * Asserts the error's kind and context for a create: its instance ID identifies the instance,
     * so it contains the requested name (the ID is not known before create returns).
     */
    static void assertCreateError(ProviderException error, ErrorKind kind, String entry, String name) {
        SoftAssertions softly = context(error, kind, Operation.CREATE, entry);
        softly.assertThat(error.instanceId()).as("instance ID of: %s", error.getMessage()).contains(name);
        softly.assertAll();
    }

    /** Asserts the error's kind and context for listManaged, which is about no one instance. */
    static void assertListError(ProviderException error, ErrorKind kind, String entry) {
        assertError(error, kind, Operation.LIST_MANAGED, entry, "");
    }

    /**
     * Asserts that validate rejected a request as create did: the same kind and detail, so a caller
     * that validates a whole desired set first reports what create would have.
     */
    static void assertSameRejection(ProviderException fromValidate, ProviderException fromCreate) {
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(fromValidate.kind()).as("kind of validate's error: %s, where create said: %s",
                fromValidate.getMessage(), fromCreate.getMessage()).isEqualTo(fromCreate.kind());
        softly.assertThat(fromValidate.detail()).as("detail of validate's error, where create said: %s",
                fromCreate.getMessage()).isEqualTo(fromCreate.detail());
        softly.assertAll();
    }

    private static SoftAssertions context(ProviderException error, ErrorKind kind, Operation operation, String entry) {
        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(error.kind()).as("kind of: %s", error.getMessage()).isEqualTo(kind);
        softly.assertThat(error.operation()).as("operation of: %s", error.getMessage()).isEqualTo(operation);
        softly.assertThat(error.entry()).as("entry of: %s", error.getMessage()).isEqualTo(entry);
        softly.assertThat(error.detail()).as("detail of: %s", error.getMessage()).isNotBlank();
        return softly;
    }
}
