#![allow(dead_code)]
//! Helpers shared by the integration tests.

pub mod brute;
