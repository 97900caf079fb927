//! The embedding engines' integration tests, one binary: agreement with the reference engines
//! (`reference/` beside this folder holds their harnesses and stored vectors), the models' own
//! checks and their installs.

mod e5_model;
mod e5_reference;
mod e5_sparse;
mod install;
mod model;
mod use_install;
mod use_reference;
