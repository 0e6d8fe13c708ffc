/**
 * The provider conformance suite: a JUnit 5 base class that any backend, in this repository or
 * outside it, subclasses to prove it honours the provider contract, and the runner that
 * {@code egressctl conformance} starts it with against a configured entry.
 *
 * <p>The package is opened to the JUnit platform because JUnit instantiates the suite's nested
 * test classes reflectively.
 */
module dev.egressproxies.conformance {
    requires transitive dev.egressproxies.api;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;
    requires org.junit.platform.launcher;
    requires org.junit.platform.reporting;

    exports dev.egressproxies.conformance;
    opens dev.egressproxies.conformance to org.junit.platform.commons;
}
