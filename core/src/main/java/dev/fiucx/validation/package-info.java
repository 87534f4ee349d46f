/**
 * Where a call is checked before anything is posted: who may be inside a call ({@link
 * dev.fiucx.validation.CallGuard}), local buffers and counts ({@link
 * dev.fiucx.validation.LocalChecks}), and remote ranges, alignment and access rights ({@link
 * dev.fiucx.validation.RemoteChecks}). UCX checks nothing, so everything is checked here, and a
 * refused call changes nothing.
 */
package dev.fiucx.validation;
